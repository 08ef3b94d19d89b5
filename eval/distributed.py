"""The Ray backend of ``splitpoker eval``: deal-group chunks as Ray tasks (Ray core only).

Ray is the optional extra ``splitpoker[ray]``. ``--address`` joins an existing cluster;
without it a local Ray instance is started with ``--workers`` CPUs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .match import Decision
    from .runner import EvalSettings


def _require_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ValueError("--backend ray needs Ray: install the extra with  pip install 'splitpoker[ray]'") from None
    return ray


def ray_chunks(settings: EvalSettings, work: list[list[int]]) -> Iterator[list[Decision]]:
    """Submit every chunk as a task; yield results as they finish."""
    ray = _require_ray()
    from .runner import play_chunk

    started_here = not ray.is_initialized()
    if started_here:
        if settings.address:
            ray.init(address=settings.address, log_to_driver=False)
        else:
            ray.init(num_cpus=settings.workers, include_dashboard=False, log_to_driver=False)
    try:
        task = ray.remote(num_cpus=1)(play_chunk)
        payload = ray.put(settings.to_dict())
        pending = [task.remote(payload, chunk) for chunk in work]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield ray.get(done[0])
    finally:
        if started_here:
            ray.shutdown()
