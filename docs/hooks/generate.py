"""MkDocs hooks: the reference sections generated from the code at build time.

A page holds a marker comment where a generated section goes:

* ``<!-- generated: cli -->`` (docs/cli.md): every subcommand's ``--help``, from the parser
  of the ``splitpoker`` console script;
* ``<!-- generated: config -->`` (docs/training.md): every training config key, its type,
  default and description, from the pydantic models of ``splitpoker.train.config`` and of
  every registered trainer's config (``splitpoker.train.trainers``).

So the reference never differs from the installed code. A marker that is missing fails the
build.

The API reference (mkdocstrings) reads the source statically. The package ``splitpoker`` has
no folder of its own in a checkout (``pyproject.toml`` maps ``splitpoker.envs`` to ``envs/``
and so on), so :func:`on_config` lays out ``build/docs/splitpoker/`` as links to those
folders, the path mkdocs.yml gives the Python handler.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mkdocs.plugins import event_priority

MARKERS = {"cli": "<!-- generated: cli -->", "config": "<!-- generated: config -->"}
PAGES = {"cli": "cli.md", "config": "training.md"}
HELP_WIDTH = 100
#: the subpackages of ``splitpoker`` and their folders in a checkout (pyproject.toml's package-dir)
SUBPACKAGES = ("envs", "agents", "train", "eval", "play", "runtime", "configs")
SOURCE_TREE = Path("build") / "docs"


@event_priority(100)  # before mkdocstrings reads anything
def on_config(config: Any) -> Any:
    root = Path(config.config_file_path).resolve().parent
    package = root / SOURCE_TREE / "splitpoker"
    package.mkdir(parents=True, exist_ok=True)
    for name in SUBPACKAGES:
        link = package / name
        if not link.is_symlink():
            link.symlink_to(root / name, target_is_directory=True)
    return config


@contextlib.contextmanager
def _columns(width: int) -> Iterator[None]:
    """argparse wraps its help to ``$COLUMNS``: a fixed width, whatever terminal builds the site."""
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(width)
    try:
        yield
    finally:
        if old is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = old


def cli_reference() -> str:
    """``splitpoker --help`` and each subcommand's ``--help``, in the order ``--help`` lists them."""
    from splitpoker.train.cli import build_parser

    with _columns(HELP_WIDTH):
        parser = build_parser()
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parts = ["## splitpoker", "", "```text", parser.format_help().rstrip(), "```", ""]
        for name, command in sub.choices.items():
            parts += [f"## splitpoker {name}", "", "```text", command.format_help().rstrip(), "```", ""]
    return "\n".join(parts)


def _type_name(annotation: Any) -> str:
    """A field's type as a reader of a YAML file sees it."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Literal:
        return " or ".join(f"`{a}`" for a in args)
    if origin in (typing.Union, types.UnionType):
        names = [_type_name(a) for a in args if a is not type(None)]
        return " or ".join(names) + (" or `null`" if type(None) in args else "")
    if origin in (list, tuple):
        return f"list of {_type_name(args[0])}" if args else "list"
    if origin is dict or _is_section(annotation):
        return "mapping"
    return {int: "integer", float: "number", bool: "boolean", str: "string"}.get(annotation, str(annotation))


def _is_section(annotation: Any) -> bool:
    from pydantic import BaseModel

    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def _listed_section(annotation: Any) -> Any:
    """The section of a list of sections (``list[Section]``, optional or not), else None."""
    for arg in [annotation, *typing.get_args(annotation)]:
        if typing.get_origin(arg) is list and _is_section(typing.get_args(arg)[0]):
            return typing.get_args(arg)[0]
    return None


def _bounds(field: Any) -> str:
    from splitpoker.runtime.arguments import is_whole

    words = []
    for item in field.metadata:
        for attr, sign in (("gt", ">"), ("ge", "≥"), ("lt", "<"), ("le", "≤"), ("min_length", "length ≥")):
            value = getattr(item, attr, None)
            if value is not None:
                words.append(f"{sign} {value:,}" if is_whole(value) else f"{sign} {value}")
    return ", ".join(words)


def _default(field: Any) -> str:
    from pydantic_core import PydanticUndefined

    if field.default_factory is not None:
        value = field.default_factory()
    elif field.default is PydanticUndefined:
        return "required"
    else:
        value = field.default
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if value is None:
        return "`null`"
    if hasattr(value, "model_dump"):
        return "(section)"
    if isinstance(value, list):
        return "`[" + ", ".join(str(v) for v in value) + "]`"
    if isinstance(value, dict):
        return "`{}`" if not value else f"`{value}`"
    return f"`{value}`"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _first_paragraph(doc: str | None) -> str:
    if not doc:
        return ""
    text = doc.strip().split("\n\n")[0]
    text = re.sub(r":(?:func|meth|class|mod|attr|data):`~?([^`]+)`", r"`\1`", text)
    return " ".join(line.strip() for line in text.splitlines()).replace("``", "`")


#: the meaning of the keys whose pydantic field carries no description
MEANINGS = {
    "num_players": "players at each table",
    "preset": "the rules preset (`splitpoker rules GAME --list`)",
    "n_envs": "tables played at once, the learner in one seat of each",
    "device": "torch device of the learner (`cpu`, `cuda`, ...)",
    "progress": "a progress bar on stderr",
    "ppo.learning_rate": "Adam learning rate",
    "ppo.batch_size": "minibatch size of an update",
    "ppo.n_epochs": "passes over each rollout",
    "ppo.gamma": "discount factor (a hand is one step)",
    "ppo.gae_lambda": "GAE lambda",
    "ppo.clip_range": "PPO clip range",
    "ppo.ent_coef": "entropy bonus coefficient",
    "ppo.vf_coef": "value loss coefficient",
    "ppo.max_grad_norm": "gradient norm clipping",
    "ppo.target_kl": "stop an update early past this KL divergence (`null`: never)",
    "ppo.normalize_advantage": "normalise the advantages of each minibatch",
    "selfplay.latest_share": "`opponent_sampling: mixed`: the probability of the newest snapshot",
    "selfplay.baselines": "baseline agent specs",
    "imitation.enabled": "run the warm start (and, with `rounds` > 1, the rounds between self-play phases)",
    "imitation.cache_dir": "folder of labelled hands kept for reuse by later runs",
    "imitation.batch_size": "minibatch size of the fit",
    "imitation.learning_rate": "Adam learning rate of the fit",
    "fictitious_play.batch_size": "minibatch size of the fit",
    "fictitious_play.learning_rate": "Adam learning rate of the fit",
    "eval.opponents": "agent specs the policy is evaluated against",
}


def config_reference() -> str:
    """One table per section of a training config, top level first: the shared keys and each
    registered trainer's, in the order a config is written, a trainer's marked with its algorithm."""
    from pydantic import BaseModel

    from splitpoker.train.config import TrainConfig, config_class
    from splitpoker.train.trainers import TRAINERS

    owners: dict[str, str] = {}  # a trainer's key → the algorithms whose config has it
    fields: dict[str, Any] = dict(TrainConfig.model_fields)
    order: list[str] = []
    for algorithm in TRAINERS:
        config = config_class(algorithm)
        layout = config.layout()
        for i, key in enumerate(layout):
            if key not in order:
                order.insert(order.index(layout[i - 1]) + 1 if i else 0, key)
            if key not in TrainConfig.model_fields:
                fields.setdefault(key, config.model_fields[key])
                owners[key] = f"{owners[key]}, {algorithm}" if key in owners else algorithm
    top = {key: fields[key] for key in order}

    def table(model: type[BaseModel] | dict[str, Any], prefix: str, inherits: str = "") -> list[str]:
        """The keys of ``model`` (or its fields); with ``inherits``, a key left out (None) is that section's."""
        rows = ["| key | type | default | meaning |", "|---|---|---|---|"]
        for name, field in (model if isinstance(model, dict) else model.model_fields).items():
            annotation, default = field.annotation, _default(field)
            if inherits and default == "`null`":
                annotation = next(a for a in typing.get_args(annotation) if a is not type(None))  # X | None
                default = f"`{inherits}.{name}`"
            if _is_section(annotation):
                kind, meaning = "section", f"[below](#{name})"
            else:
                kind = _type_name(annotation)
                bounds = _bounds(field)
                kind += f" ({bounds})" if bounds else ""
                meaning = field.description or MEANINGS.get(prefix + name, "")
                if _listed_section(field.annotation) is not None:
                    meaning += f" ([below](#{_anchor(prefix + name)}))"
            if not prefix and name in owners:
                meaning += f" (algorithm {owners[name]})"
            rows.append(f"| `{prefix}{name}` | {_cell(kind)} | {_cell(default)} | {_cell(meaning)} |")
        return rows

    def listed(model: type[BaseModel], prefix: str) -> list[str]:
        """A table for each list of sections in ``model``: the keys of one item."""
        parts = []
        for name, field in model.model_fields.items():
            item = _listed_section(field.annotation)
            if item is not None:
                parts += [f"### {prefix}{name}", "", _first_paragraph(item.__doc__), "",
                          *table(item, f"{prefix}{name}[i].", inherits=prefix.rstrip(".")), ""]
        return parts

    parts = ["### Top level", "", _first_paragraph(TrainConfig.__doc__), "", *table(top, ""), ""]
    for name, field in top.items():
        if _is_section(field.annotation):
            parts += [f"### {name}", "", _first_paragraph(field.annotation.__doc__), "",
                      *table(field.annotation, f"{name}."), "", *listed(field.annotation, f"{name}.")]
    return "\n".join(parts)


def _anchor(title: str) -> str:
    """The anchor MkDocs gives a heading of plain words (its default slugify)."""
    return re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", title).strip().lower())


GENERATORS = {"cli": cli_reference, "config": config_reference}


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    for key, marker in MARKERS.items():
        if page.file.src_uri == PAGES[key]:
            if marker not in markdown:
                raise RuntimeError(f"{PAGES[key]} lost its marker {marker}")
            markdown = markdown.replace(marker, GENERATORS[key]())
    return markdown
