"""Checkpoints whose ``splitpoker.json`` holds bad values (agents/learned/checkpoint.py ``read_meta``).

Each case copies a split-scorer policy file (as training writes one) and rewrites one value of its description: a
network far too wide, a negative width, a width that is not a number, a table size in words,
no architecture at all. Loading it is one ValueError line naming the file, the key and the
value, raised before any network is built; on the command line, exit status 2 and one line.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from splitpoker.agents import load_agent
from splitpoker.agents.learned import policy as P
from splitpoker.agents.learned.checkpoint import META_MEMBER, read_meta
from splitpoker.agents.learned.policy_kinds import MAX_WIDTH
from tests.helpers import policy_file, refused

Meta = dict[str, Any]


def _set_arch(**arch: Any) -> Callable[[Meta], None]:
    def edit(meta: Meta) -> None:
        meta["policy"]["arch"].update(arch)
    return edit


def _mlp(net_arch: list[Any]) -> Callable[[Meta], None]:
    def edit(meta: Meta) -> None:
        meta["policy"] = {"kind": "mlp", "arch": {"net_arch": net_arch, "activation": "relu"}}
    return edit


def _no_arch(meta: Meta) -> None:
    del meta["policy"]["arch"]


def _players_in_words(meta: Meta) -> None:
    meta["num_players"] = "four"


#: (id, edit of the description, key the message names, value the message shows)
CASES: list[tuple[str, Callable[[Meta], None], str, str]] = [
    ("subset_hidden_huge", _set_arch(subset_hidden=2_000_000_000), "policy.arch.subset_hidden", "2000000000"),
    ("mlp_layer_huge", _mlp([2_000_000_000]), "policy.arch.net_arch", "2000000000"),
    ("no_arch", _no_arch, "policy.arch", ""),
    ("players_in_words", _players_in_words, "num_players", "'four'"),
    ("mlp_layer_not_a_number", _mlp(["a"]), "policy.arch.net_arch", "'a'"),
    ("subset_hidden_negative", _set_arch(subset_hidden=-5), "policy.arch.subset_hidden", "-5"),
]

#: the policy files to start from, by name: game, table size and preset
SOURCES = {"biji_4p": ("biji", 4, "classic"), "thirteen_western_2p": ("thirteen", 2, "western")}


def rewrite(source: Path, target: Path, edit: Callable[[Meta], None]) -> None:
    """A copy of the policy file or checkpoint ``source`` at ``target`` with ``edit(meta)``
    applied to its description."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(source) as archive, zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as copy:
        for name in archive.namelist():
            data = archive.read(name)
            if name == META_MEMBER:
                meta = json.loads(data)
                edit(meta)
                data = json.dumps(meta).encode()
            copy.writestr(name, data)


def crafted(tmp_path: Path, source: str, edit: Callable[[Meta], None]) -> Path:
    """A copy of the policy file ``source`` of :data:`SOURCES` with its description edited."""
    game, players, preset = SOURCES[source]
    original = policy_file(tmp_path / f"{source}.zip", preset, game, players)
    path = tmp_path / f"{source}_crafted.zip"
    rewrite(original, path, edit)
    return path


@pytest.fixture(autouse=True)
def nothing_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    """The description is checked before any network is built."""
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a network was built from a bad description")
    monkeypatch.setattr(P, "build_policy", refuse)


@pytest.mark.parametrize("source", sorted(SOURCES))
@pytest.mark.parametrize(("edit", "key", "shown"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_bad_description_is_one_line_naming_file_and_key(tmp_path: Path, source: str,
                                                            edit: Callable[[Meta], None], key: str,
                                                            shown: str) -> None:
    path = crafted(tmp_path, source, edit)
    game, players, _ = SOURCES[source]
    with pytest.raises(ValueError) as caught:
        load_agent(f"checkpoint:{path}", game, players)
    message = str(caught.value)
    assert len(message.splitlines()) == 1, message
    assert str(path) in message and key in message and shown in message, message


def test_the_width_limit_is_the_networks_bound(tmp_path: Path) -> None:
    """The widest layer allowed loads past the description check; one wider does not."""
    widest = crafted(tmp_path, "biji_4p", _set_arch(subset_hidden=MAX_WIDTH))
    assert read_meta(widest)["policy"]["arch"]["subset_hidden"] == MAX_WIDTH
    too_wide = crafted(tmp_path, "thirteen_western_2p", _set_arch(value_hidden=MAX_WIDTH + 1))
    with pytest.raises(ValueError, match=rf"policy\.arch\.value_hidden = {MAX_WIDTH + 1}.*{MAX_WIDTH}"):
        read_meta(too_wide)


@pytest.mark.parametrize(("edit", "key", "shown"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_cli_bad_checkpoint_is_status_2_and_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     edit: Callable[[Meta], None], key: str, shown: str) -> None:
    path = crafted(tmp_path, "biji_4p", edit)
    line = refused(capsys, "eval", "biji", "--agents", f"checkpoint:{path},random", "--hands", "2")
    assert str(path) in line and key in line and shown in line, line
