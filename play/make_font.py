"""The page's Chinese font: ``static/cjk.woff2``, Noto Sans CJK SC cut down to the Chinese
characters the page and the server can show, so that a machine without a CJK font shows
them too (no boxes). The font is under the SIL Open Font License 1.1 (``static/OFL.txt``);
the cut-down copy is renamed ``splitpoker CJK``, as the licence asks of a modified version.

Build it again after changing any Chinese text of the page or of the rules' descriptions
(a test fails while a character shown is missing from the font)::

    python -m splitpoker.play.make_font [--source NotoSansCJK-Regular.ttc]

Building needs fontTools and brotli (the ``[dev]`` extra); serving the page needs neither.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

__all__ = ["FONT", "SOURCE", "build", "is_cjk", "shown_characters"]

STATIC = Path(__file__).resolve().parent / "static"
#: the font the page loads
FONT = STATIC / "cjk.woff2"
#: the font cut down (Debian and Ubuntu: ``apt-get install fonts-noto-cjk``)
SOURCE = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
#: the face of the collection: Simplified Chinese
FACE = "Noto Sans CJK SC"
FAMILY = "splitpoker CJK"
#: the blocks the font serves (as the style sheet's ``unicode-range`` says): CJK radicals,
#: punctuation and ideographs, compatibility ideographs and forms, full-width forms
CJK_RANGES = ((0x2E80, 0x9FFF), (0xF900, 0xFAFF), (0xFE30, 0xFE4F), (0xFF00, 0xFFEF))
#: the page's own files whose text is shown
PAGE_FILES = ("*.js", "*.html")


def is_cjk(char: str) -> bool:
    """Whether the font serves ``char`` (one of :data:`CJK_RANGES`).

    >>> is_cjk("十"), is_cjk("："), is_cjk("A"), is_cjk("♠")
    (True, True, False, False)
    """
    return any(low <= ord(char) <= high for low, high in CJK_RANGES)


def _server_words() -> str:
    """What the server sends for the page to show as it is: every game's rules panel under
    every preset (summary, switch descriptions, tables) and its names of an invalid
    arrangement."""
    from ..envs.games import GAMES, make_game
    from .session import rules_view

    parts: list[Any] = []
    for name in GAMES:
        for preset in type(make_game(name).rules).PRESETS:
            game = make_game(name, preset)
            parts += [rules_view(game, preset), game.invalid_name, game.invalid_reason]
    return json.dumps(parts, ensure_ascii=False)


def shown_characters() -> str:
    """Every Chinese character (:func:`is_cjk`) that the page or the server can show, sorted."""
    text = "".join(path.read_text(encoding="utf-8") for pattern in PAGE_FILES for path in sorted(STATIC.glob(pattern)))
    text += _server_words()
    return "".join(sorted({char for char in text if is_cjk(char)}))


def build(source: Path = SOURCE, target: Path = FONT) -> int:
    """Cut ``source`` (a collection holding :data:`FACE`) down to :func:`shown_characters`
    and write it to ``target`` as WOFF2, renamed :data:`FAMILY`; its size in bytes."""
    from fontTools import subset
    from fontTools.ttLib import TTCollection, TTFont

    fonts = TTCollection(str(source)).fonts if source.suffix.lower() in (".ttc", ".otc") else [TTFont(str(source))]
    font = next(f for f in fonts if f["name"].getDebugName(1) == FACE)
    options = subset.Options()
    options.flavor = "woff2"
    options.layout_features = ["ccmp", "locl", "kern", "palt", "vert"]
    options.hinting = False
    options.desubroutinize = True
    options.name_IDs = [0, 1, 2, 3, 4, 5, 6, 7, 13, 14]
    subsetter = subset.Subsetter(options)
    subsetter.populate(text=shown_characters())
    subsetter.subset(font)
    names = font["name"]
    for record in list(names.names):
        if record.nameID in (1, 4, 16):
            names.setName(FAMILY, record.nameID, record.platformID, record.platEncID, record.langID)
        elif record.nameID in (3, 6):
            names.setName(re.sub(r"\s+", "", FAMILY) + "-Regular", record.nameID, record.platformID,
                          record.platEncID, record.langID)
    font.flavor = "woff2"
    font.recalcTimestamp = False  # the same characters, the same bytes
    font.save(str(target))
    return target.stat().st_size


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=SOURCE, help=f"the Noto Sans CJK collection (default {SOURCE})")
    args = parser.parse_args(argv)
    size = build(args.source)
    print(f"{FONT}: {len(shown_characters())} characters, {size:,} bytes")


if __name__ == "__main__":
    main()
