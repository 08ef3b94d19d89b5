"""The Ray backend of ``splitpoker eval``: deal-group chunks as Ray tasks (Ray core only).

Ray is the optional extra ``splitpoker[ray]``. ``--address`` joins an existing cluster;
without it a local Ray instance is started with ``--workers`` CPUs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any


def _require_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ValueError("--backend ray needs Ray: install the extra with  pip install 'splitpoker[ray]'") from None
    return ray


def ray_chunks(play_chunk: Callable[[Any, list[int]], Any], payload: Any, work: list[list[int]], workers: int,
               address: str | None = None) -> Iterator[Any]:
    """Submit ``play_chunk(payload, chunk)`` for every chunk of ``work`` as a Ray task; yield
    the results as they finish. ``address`` joins an existing cluster; without it a local Ray
    instance is started with ``workers`` CPUs."""
    ray = _require_ray()
    started_here = not ray.is_initialized()
    if started_here:
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
    try:
        task = ray.remote(num_cpus=1)(play_chunk)
        shared = ray.put(payload)
        pending = [task.remote(shared, chunk) for chunk in work]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield ray.get(done[0])
    finally:
        if started_here:
            ray.shutdown()
