"""The registries (splitpoker.runtime.registry): a name maps to an absolute entry point,
imported on first use; a name is registered once; an unknown name is one ValueError listing
the names. Every registry of the package loads each of its entries."""

from __future__ import annotations

import sys

import pytest

from splitpoker.runtime.registry import NotRegistered, Registry, load_entry_point


def test_an_entry_is_imported_when_first_asked_for() -> None:
    registry: Registry[object] = Registry("thing")
    registry.register("absent", "splitpoker_no_such_module:thing")
    registry.register("decoder", "json.decoder:JSONDecoder")
    assert "absent" in registry and registry.names == ("absent", "decoder") and len(registry) == 2
    assert list(registry) == ["absent", "decoder"]
    with pytest.raises(ModuleNotFoundError, match="splitpoker_no_such_module"):
        registry["absent"]  # noqa: B018
    import json.decoder

    assert registry["decoder"] is json.decoder.JSONDecoder
    assert registry.entry_point("decoder") == "json.decoder:JSONDecoder"


def test_an_entry_point_may_name_a_module_or_a_dotted_attribute() -> None:
    assert load_entry_point("json") is sys.modules["json"]
    import collections

    assert load_entry_point("collections:OrderedDict.fromkeys") == collections.OrderedDict.fromkeys


def test_a_name_is_registered_once() -> None:
    registry: Registry[object] = Registry("thing")
    registry.register("one", "json:loads")
    with pytest.raises(ValueError, match=r"thing 'one' is already registered \(json:loads\)"):
        registry.register("one", "json:dumps")
    assert registry.entry_point("one") == "json:loads"


@pytest.mark.parametrize("entry_point", [".json:loads", "json:", ":loads", "json:loads:x", "json loads", 3])
def test_an_entry_point_is_absolute(entry_point: object) -> None:
    with pytest.raises(ValueError, match="is not 'package.module:attr'"):
        Registry("thing").register("one", entry_point)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["", None, 3])
def test_a_name_is_a_non_empty_string(name: object) -> None:
    with pytest.raises(ValueError, match="a thing name is a non-empty string"):
        Registry("thing").register(name, "json:loads")  # type: ignore[arg-type]


def test_an_unknown_name_is_a_value_error_listing_the_names() -> None:
    registry: Registry[object] = Registry("policy", "policies")
    registry.register("mlp", "json:loads")
    registry.register("tree", "json:dumps")
    for ask in (lambda: registry["cnn"], lambda: registry.check("cnn"), lambda: registry.entry_point("cnn")):
        with pytest.raises(ValueError, match=r"^unknown policy 'cnn'; policies: mlp, tree$"):
            ask()
    with pytest.raises(KeyError):
        registry["cnn"]  # noqa: B018
    assert issubclass(NotRegistered, KeyError) and registry.get("cnn") is None
    assert [] not in registry and registry.check("mlp") == "mlp"
    with pytest.raises(ValueError, match=r"unknown policy \[\]"):
        registry.check([])


def test_the_packages_registries_load_every_entry() -> None:
    from splitpoker.agents.specs import AGENT_BUILDERS, AGENT_KINDS
    from splitpoker.envs.games import GAMES
    from splitpoker.envs.registration import ENV_MODULES, ENV_PATHS, ENVIRONMENTS
    from splitpoker.train.cli import COMMAND_GROUPS

    assert list(GAMES) == ["thirteen", "biji"] and all(cls.name == name for name, cls in GAMES.items())
    assert ENV_MODULES == ("thirteen_v0", "biji_v0") == tuple(ENV_PATHS)
    assert all(ENVIRONMENTS[name].__name__ == ENV_PATHS[name] for name in ENV_MODULES)
    assert list(AGENT_BUILDERS) == list(AGENT_KINDS) and all(callable(AGENT_BUILDERS[k]) for k in AGENT_KINDS)
    assert list(COMMAND_GROUPS) == ["envs", "agents", "eval", "train", "play"]
    with pytest.raises(TypeError):
        AGENT_KINDS["mine"] = AGENT_KINDS["greedy"]  # type: ignore[index]
    with pytest.raises(TypeError):
        ENV_PATHS["other_v0"] = "splitpoker.envs.biji.env"  # type: ignore[index]


def test_the_policy_kinds_are_their_policy_classes() -> None:
    pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from splitpoker.agents.learned.networks import SplitScorerPolicy, policy_class
    from splitpoker.agents.learned.offered_policy import OfferedSplitsPolicy
    from splitpoker.agents.learned.policy_kinds import POLICY_KINDS

    assert list(POLICY_KINDS) == ["mlp", "split_scorer", "offered"]
    assert policy_class("mlp") is MaskableActorCriticPolicy and policy_class("split_scorer") is SplitScorerPolicy
    assert policy_class("offered") is OfferedSplitsPolicy


def test_an_unknown_game_is_named_with_the_games() -> None:
    from splitpoker.envs.games import check_game, game_class

    for ask in (check_game, game_class):
        with pytest.raises(ValueError, match=r"^unknown game 'chess'; games: thirteen, biji$"):
            ask("chess")
