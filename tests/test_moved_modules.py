"""Modules that moved keep their old import paths: each name read through the old path is the
new module's own object, with a DeprecationWarning naming the new path, and an object pickled
under the old path (as Stable-Baselines3 stores a model's policy class) loads as the same
class."""

from __future__ import annotations

import base64
import importlib
import json
import re
import warnings

import pytest

#: old path → (new path, a name to read through the old one, whether it needs torch)
MOVED = {
    "splitpoker.agents.checkpoint": ("splitpoker.agents.learned.checkpoint", "read_meta", True),
    "splitpoker.agents.policy": ("splitpoker.agents.learned.policy", "PolicyAgent", True),
    "splitpoker.agents.policy_kinds": ("splitpoker.agents.learned.policy_kinds", "POLICY_KINDS", False),
    "splitpoker.agents.networks": ("splitpoker.agents.learned.networks", "SplitScorerPolicy", True),
    "splitpoker.agents.export": ("splitpoker.agents.learned.export", "export_policy", True),
    "splitpoker.agents.distribution": ("splitpoker.agents.learned.distribution", "SplitDistribution", True),
    "splitpoker.agents.sparse": ("splitpoker.agents.learned.sparse", "MarkedSplits", True),
    "splitpoker.agents.subset_ops": ("splitpoker.agents.learned.subset_ops", "SplitStatistics", True),
    "splitpoker.agents.policy_files": ("splitpoker.agents.learned.policy_files", "weights", False),
    "splitpoker.eval.bench": ("splitpoker.eval.speed", "run_bench", False),
    "splitpoker.train.bench": ("splitpoker.train.speed", "training_figures", True),
}


@pytest.mark.parametrize("old", MOVED)
def test_an_old_path_warns_and_gives_the_new_modules_object(old: str) -> None:
    new, name, needs_torch = MOVED[old]
    if needs_torch:
        pytest.importorskip("torch")
    moved = importlib.import_module(old)
    found = getattr(importlib.import_module(new), name)
    message = re.escape(f"{old} moved to {new}")
    with pytest.warns(DeprecationWarning, match=message):
        assert getattr(moved, name) is found
    scope: dict[str, object] = {}
    with pytest.warns(DeprecationWarning, match=message):
        exec(f"from {old} import {name}", scope)  # noqa: S102
    assert scope[name] is found
    assert name in dir(moved)
    with pytest.raises(AttributeError, match=f"module '{re.escape(old)}' has no attribute 'nothing'"):
        moved.nothing  # noqa: B018


def test_a_place_that_reads_several_names_warns_once() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        exec("from splitpoker.agents.policy_kinds import MAX_WIDTH, POLICY_KINDS, check_arch", {})  # noqa: S102
    assert [type(w.message) for w in caught] == [DeprecationWarning]


def test_a_model_pickled_under_the_old_path_loads_its_policy_class() -> None:
    """A checkpoint's ``data`` member written before the move names the policy class by its
    old module; Stable-Baselines3 reads it back as the class itself."""
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.save_util import json_to_data

    from splitpoker.agents.learned.networks import SplitScorerPolicy

    pickled = b"csplitpoker.agents.networks\nSplitScorerPolicy\n."  # the class, by module and name
    data = json.dumps({"policy_class": {":type:": "<class 'abc.ABCMeta'>",
                                        ":serialized:": base64.b64encode(pickled).decode()}})
    with pytest.warns(DeprecationWarning, match="splitpoker.agents.learned.networks"):
        assert json_to_data(data)["policy_class"] is SplitScorerPolicy
