"""Subcommands of the rules engines: ``rules``, ``compare``, ``score`` and ``splits``."""

from __future__ import annotations

import argparse
import json
from typing import Any

from .games import GAMES, game_names

GAME_CHOICES = game_names()


def either(names: Any) -> str:
    """``"a, b or c"``: a list of names for help and error messages."""
    names = list(names)
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def _title(name: str) -> str:
    return name.replace("_", " ").title()


#: the registered games, for help and error messages: "thirteen or biji"
GAMES_TEXT = either(GAME_CHOICES)
#: each game's hand size, for the help of a hand argument: "13 cards for thirteen, 9 for biji"
HAND_SIZES_TEXT = ", ".join(f"{cls.hand_size}{' cards' if k == 0 else ''} for {name}"
                            for k, (name, cls) in enumerate(GAMES.items()))


def add_rules_options(parser: argparse.ArgumentParser) -> None:
    """``--preset`` and ``--set switch=value`` (repeatable)."""
    presets = "; ".join(f"{name}: {', '.join(cls.rules_class.PRESETS)}" for name, cls in GAMES.items())
    parser.add_argument("--preset", default="classic", help=f"rules preset (default: classic); {presets}")
    parser.add_argument("--set", dest="switches", action="append", default=[], metavar="SWITCH=VALUE",
                        help="override one rule switch (repeatable), e.g. --set wheel=lowest")


def add_game_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", choices=GAME_CHOICES, help="the game")


def game_from_args(args: argparse.Namespace) -> Any:
    from .games import make_game
    from .switches import parse_assignments

    return make_game(args.game, args.preset, **parse_assignments(args.switches))


def emit(args: argparse.Namespace, document: dict[str, Any], text: str) -> None:
    """Print the JSON document with ``--json``, else the readable text."""
    print(json.dumps(document, ensure_ascii=False) if args.json else text)


def _rules(args: argparse.Namespace) -> None:
    if args.list:
        if args.preset != "classic" or args.switches:
            raise ValueError("rules --list prints every preset; give no --preset or --set with it")
        _list_presets(args)
        return
    game = game_from_args(args)
    document = lines = game.rules.to_dict()
    if args.tables:
        tables = game.rules.tables()
        document, lines = {"rules": document, "tables": tables}, _flat(tables)
    width = max(map(len, lines), default=0)
    emit(args, document, "\n".join(f"{k:<{width}}  {v}" for k, v in lines.items()))


def _flat(tables: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested tables as ``a.b.c: value`` lines."""
    out: dict[str, Any] = {}
    for key, value in tables.items():
        if isinstance(value, dict):
            out.update(_flat(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def _list_presets(args: argparse.Namespace) -> None:
    """Every preset of the game with its one-line description (and, in JSON, its rules)."""
    from .games import GAMES

    rules_class = GAMES[args.game].rules_class
    descriptions = rules_class.preset_descriptions()
    document = {"game": args.game, "presets": [
        {"name": name, "description": line, "rules": rules_class.preset(name).to_dict()}
        for name, line in descriptions.items()]}
    width = max(map(len, descriptions))
    emit(args, document, "\n".join(f"{name:<{width}}  {line}" for name, line in descriptions.items()))


def _compare(args: argparse.Namespace) -> None:
    import numpy as np

    from .cards import check_hand, format_cards, parse_cards

    game = game_from_args(args)
    entries = {}
    rows = []
    for name, text in (("a", args.row_a), ("b", args.row_b)):
        cards = parse_cards(text)
        sizes = tuple(sorted(set(game.split_index.row_sizes)))
        if len(cards) not in sizes:
            raise ValueError(f"row {name} {text!r} has {len(cards)} cards; a {game.name} row has "
                             f"{' or '.join(map(str, sizes))}")
        check_hand(cards, len(cards), jokers=game.jokers, what=f"row {name} {text!r}")
        rows.append(cards)
        strength = int(game.row_strengths(np.sort(np.asarray(cards, dtype=np.intp))[None])[0])
        entries[name] = {"cards": format_cards(cards), "type": game.type_name(strength), "strength": strength}
    if len(rows[0]) != len(rows[1]):
        raise ValueError(f"rows {args.row_a!r} and {args.row_b!r} differ in size; compare rows of one size")
    if set(rows[0]) & set(rows[1]):
        raise ValueError(f"rows {args.row_a!r} and {args.row_b!r} share a card")
    sa, sb = entries["a"]["strength"], entries["b"]["strength"]
    result = (sa > sb) - (sa < sb)
    document = {"result": result, "a": entries["a"], "b": entries["b"]}
    verdict = {1: "A is stronger", -1: "B is stronger", 0: "equal"}[result]
    text = "\n".join(f"{k.upper()}: {v['cards']:<16} {v['type']}" for k, v in entries.items()) + f"\n{verdict}"
    emit(args, document, text)


def _score(args: argparse.Namespace) -> None:
    from .cards import format_cards

    game = game_from_args(args)
    if not args.hand:
        raise ValueError("give the hands with --hand \"row | row | row\" (one per seat)")
    arrangements = []
    for text in args.hand:
        rows = game.parse_arrangement(text)
        if args.sort:
            import numpy as np

            if len(set(game.split_index.row_sizes)) > 1:
                raise ValueError(f"--sort needs rows of one size; {game.name} rows have "
                                 f"{'/'.join(map(str, game.split_index.row_sizes))} cards")
            strengths = [int(game.row_strengths(np.sort(np.asarray(r, dtype=np.intp))[None])[0]) for r in rows]
            rows = [rows[k] for k in np.argsort(strengths)]
        arrangements.append(rows)
    score = game.score(arrangements)
    document = score.to_dict()
    # what each seat was paid beyond its rows and pots (and Biji's 喜, below): royalties,
    # special hands, scoop and home run, majority, each by name with its total
    extras: list[dict[tuple[str, str], float]] = [{} for _ in arrangements]
    for item in game.payoff_items(score):
        if item["kind"] not in ("row", "pot", "xi"):
            key = (item["kind"].replace("_", " "), item["detail"])
            extras[item["seat"]][key] = extras[item["seat"]].get(key, 0.0) + item["amount"]
    lines = []
    for seat, rows in enumerate(arrangements):
        described = "  |  ".join(f"{format_cards(r)} ({t})" for r, t in zip(rows, game.describe_rows(rows)))
        line = f"seat {seat}: {described}  ->  {document['payoffs'][seat]:+g}"
        if document.get("fouled", [False] * len(arrangements))[seat]:
            line += f"  (the arrangement {game.invalid_reason})"
        paid = [f"{kind} {detail} {amount:+g}" for (kind, detail), amount in extras[seat].items() if amount]
        if paid:
            line += f"  ({'; '.join(paid)})"
        bonus = document["bonuses"][seat] if "bonuses" in document else None
        if bonus and bonus["xi"]:  # Biji's 喜: the count, the bonuses by name and what they paid
            names = ", ".join(f"{name} {count}" for name, count in bonus["xi"].items())
            line += f"  (喜 {document['xi'][seat]}: {names}; 喜 payments {bonus['payoff']:+g})"
        lines.append(line)
    emit(args, document, "\n".join(lines))


def _splits(args: argparse.Namespace) -> None:
    import numpy as np

    from .cards import format_cards, parse_cards

    game = game_from_args(args)
    slots = game.slots(parse_cards(args.cards))
    if args.decode is not None:
        rows = game.arrangement(slots, args.decode)
        valid = bool(game.valid_mask(slots)[args.decode])
        document = {"index": args.decode, "arrangement": [format_cards(r) for r in rows],
                    "types": game.describe_rows(rows), "valid": valid}
        text = " | ".join(document["arrangement"]) + f"   ({', '.join(document['types'])}; " \
               f"{'valid' if valid else 'invalid'})"
        emit(args, document, text)
        return
    valid = np.flatnonzero(game.valid_mask(slots)).tolist()
    document = {"slots": format_cards(slots).split(), "actions": game.n_actions, "valid": valid}
    emit(args, document, f"slots: {format_cards(slots)}\n{len(valid)} of {game.n_actions} splits are valid")


def _decode_index(text: str) -> int:
    from ..runtime.arguments import plain_whole, shown

    index = plain_whole(text)
    if index is None:
        raise argparse.ArgumentTypeError(f"split index {shown(text)} is not an integer written in decimal digits "
                                         "(without a leading 0 or '_')")
    return index


def _game_command(sub: argparse._SubParsersAction, name: str, run: Any, help: str,
                  description: str) -> argparse.ArgumentParser:
    """A subcommand taking the game, ``--preset``, ``--set`` and ``--json``."""
    p = sub.add_parser(name, help=help, description=description)
    add_game_argument(p)
    add_rules_options(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=run)
    return p


def _row_sizes_text() -> str:
    """Each game's row sizes: "Thirteen: 3 or 5 cards; Biji: 3 cards"."""
    return "; ".join(f"{_title(name)}: {either(map(str, sorted(set(cls.split_index.row_sizes) - {0})))} cards"
                     for name, cls in GAMES.items())


def register(sub: argparse._SubParsersAction) -> None:
    p = _game_command(sub, "rules", _rules, "print the resolved rules of a game",
                      "Print the resolved rule switches of a game: a preset with --set overrides; "
                      "--list prints every preset with a one-line description.")
    p.add_argument("--list", action="store_true", help="list every preset of the game with a one-line description")
    p.add_argument("--tables", action="store_true", help="print the payment tables the rules select (royalty and "
                   "special-hand values; Biji: pot payments and 喜); with --json, {\"rules\": ..., \"tables\": ...}")

    p = _game_command(sub, "compare", _compare, "compare two rows",
                      f"Compare two rows ({_row_sizes_text()}). Result 1 means A is stronger.")
    p.add_argument("row_a", help='row A, e.g. "As Kd Qc"')
    p.add_argument("row_b", help="row B, of the same size")

    p = _game_command(sub, "score", _score, "score a table of arrangements",
                      "Score a table: one --hand per seat, in seat order ("
                      + ", ".join(f"{_title(name)} {cls.players[0]}-{cls.players[1]}" for name, cls in GAMES.items())
                      + ").")
    p.add_argument("--hand", action="append", default=[], metavar='"ROW | ROW | ROW"',
                   help="a seat's arrangement, weakest row first (repeat per seat)")
    p.add_argument("--sort", action="store_true", help="sort each seat's rows by strength (games whose rows have "
                   "one size, such as Biji) instead of rejecting an arrangement that is out of order")

    p = _game_command(sub, "splits", _splits, "list the valid splits of a hand",
                      "The canonical slots of a hand and the indices of its valid splits, or the arrangement of "
                      "one index.")
    p.add_argument("cards", help=f'the hand, e.g. "As Kd ..." ({HAND_SIZES_TEXT})')
    p.add_argument("--decode", type=_decode_index, metavar="N", help="print the arrangement of split index N")
