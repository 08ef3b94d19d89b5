"""Summary statistics: means with 95% confidence intervals, quantiles.

>>> lo, hi = mean_ci([1.0, 2.0, 3.0, 4.0])
>>> round(lo, 3), round(hi, 3)
(0.446, 4.554)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

# two-sided 97.5% quantiles of Student's t by degrees of freedom (1..30); above 30 a normal tail
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
         2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
         2.045, 2.042)


def t_quantile_975(dof: int) -> float:
    """The 97.5% quantile of Student's t with ``dof`` degrees of freedom (normal approximation above 30)."""
    if dof < 1:
        raise ValueError(f"degrees of freedom must be at least 1, got {dof}")
    if dof <= 30:
        return _T975[dof - 1]
    return 1.959964 + 2.372 / dof  # Cornish-Fisher first term, exact to 3 decimals above 30


def mean_ci(values: Sequence[float] | np.ndarray) -> tuple[float, float]:
    """The 95% confidence interval of the mean of independent ``values`` (Student's t).
    A single value gives an interval of infinite width."""
    x = np.asarray(values, dtype=float)
    if len(x) == 0:
        raise ValueError("a confidence interval needs at least one value")
    if len(x) == 1:
        return (-math.inf, math.inf)
    half = t_quantile_975(len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x))
    return (float(x.mean() - half), float(x.mean() + half))


#: what :func:`ci_text` writes for an interval the deals cannot give
TOO_FEW_DEALS = "no interval: too few deals"


def ci_text(ci: Sequence[float], digits: int = 3) -> str:
    """An interval of :func:`mean_ci` as text: ``[-0.120, +0.340]``; where the deals give no
    interval, saying so: one deal (an interval of infinite width), or deals that all scored
    alike (an interval of no width: a few deals whose best response agreed with the agent
    everywhere, say), rather than an interval of zeros.

    >>> ci_text((-0.12, 0.34)), ci_text((1.0, 1.0)), ci_text((-math.inf, math.inf))
    ('[-0.120, +0.340]', 'no interval: too few deals (all alike)', 'no interval: too few deals (one)')
    """
    lo, hi = float(ci[0]), float(ci[1])
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return f"{TOO_FEW_DEALS} (one)"
    if lo == hi:
        return f"{TOO_FEW_DEALS} (all alike)"
    return f"[{lo:+.{digits}f}, {hi:+.{digits}f}]"
