"""Shared pytest set-up: import paths, Hypothesis profiles and seeded generators.

* The repository root goes on ``sys.path`` so tests can import the reference
  implementations as ``tests.reference`` however pytest is started (plain ``pytest``,
  ``python -m pytest``, xdist workers).
* ``browser``: headless Chromium for the tests marked ``browser``
  (:func:`tests.browser_support.chromium_driver`).
* Hypothesis: no per-example deadline (NumPy's first calls and cached tables make the first
  example slow); under ``CI`` the ``ci`` profile derandomises the search so a run is
  repeatable. ``HYPOTHESIS_PROFILE`` picks a profile explicitly.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

settings.register_profile("dev", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


@pytest.fixture
def rng(request: pytest.FixtureRequest) -> np.random.Generator:
    """A NumPy generator seeded from the test's name: reproducible, different per test."""
    seed = sum(ord(ch) * (i + 1) for i, ch in enumerate(request.node.nodeid)) % (2**32)
    return np.random.default_rng(seed)


@pytest.fixture
def browser() -> Iterator[Any]:
    """Headless Chromium in English, quit after the test (skipped where it is not installed)."""
    from tests.browser_support import chromium_driver

    with chromium_driver() as driver:
        yield driver
