"""Text rendering of a table of an arrangement game: every seat's hand while the hand is
played (choices stay hidden), then every seat's rows with their types, fouls, special
hands or 喜 bonuses, and payoffs. Pure: NumPy only.

>>> from splitpoker.envs.games import make_game
>>> from splitpoker.envs.cards import parse_cards
>>> hands = [sorted(parse_cards(text)) for text in ("2c 3d 4h 5s 6c 7d 8h 9s Tc", "Jc Jd Jh Qs Kc Ad 2h 3s 4c")]
>>> print(render_table(make_game("biji"), hands, title="Biji"))
Biji · 2 players · 0 of 2 arranged
player_0  to act    2♣ 3♦ 4♥ 5♠ 6♣ 7♦ 8♥ 9♠ T♣
player_1  to act    2♥ 3♠ 4♣ J♣ J♦ J♥ Q♠ K♣ A♦
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .cards import pretty_card
from .games import Game


def pretty_cards(cards: Sequence[int] | np.ndarray) -> str:
    """Cards with suit symbols, separated by spaces (``A♠ T♦ 2♣``)."""
    return " ".join(pretty_card(int(c)) for c in cards)


def seat_notes(breakdown: Mapping[str, Any]) -> list[str]:
    """The remarkable parts of a seat's scoring breakdown, as short phrases."""
    notes = []
    if breakdown.get("fouled"):
        notes.append("FOUL")
    if breakdown.get("special"):
        notes.append(f"special {breakdown['special']} ({breakdown.get('special_value', 0)})")
    if breakdown.get("xi"):
        names = ", ".join(breakdown.get("bonuses", {}))
        notes.append(f"喜 {breakdown['xi']}: {names}")
    return notes


def _place(place: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(place, f"{place}th")


def render_table(game: Game, hands: Sequence[Sequence[int] | np.ndarray], *, title: str = "",
                 acted: Sequence[bool] | None = None,
                 arrangements: Sequence[Sequence[Sequence[int]]] | None = None,
                 types: Sequence[Sequence[str]] | None = None,
                 breakdowns: Sequence[Mapping[str, Any]] | None = None,
                 payoffs: Sequence[float] | None = None) -> str:
    """The table as text.

    While the hand is played (``arrangements`` is None) each seat shows its hand and
    whether it has arranged it; once it is over each seat shows its rows (with
    ``types``), the notes of its scoring ``breakdowns`` and its payoff."""
    n = len(hands)
    acted = list(acted) if acted is not None else [False] * n
    names = [f"player_{s}" for s in range(n)]
    width = max(len(name) for name in names) + 2
    status = f"{sum(acted)} of {n} arranged" if arrangements is None else "hand over"
    lines = [" · ".join(part for part in (title or game.name.capitalize(), f"{n} players", status) if part)]
    if arrangements is None:
        for seat, hand in enumerate(hands):
            state = "arranged" if acted[seat] else "to act"
            lines.append(f"{names[seat]:<{width}}{state:<10}{pretty_cards(hand)}")
        return "\n".join(lines)
    row_width = max(len(name) for name in game.row_names) + 2
    type_width = max((len(t) for seat_types in types for t in seat_types), default=0) + 2 if types else 0
    card_width = max(len(pretty_cards(row)) for rows in arrangements for row in rows) + 2
    for seat, rows in enumerate(arrangements):
        breakdown = breakdowns[seat] if breakdowns is not None else {}
        places = breakdown.get("places")
        for k, row in enumerate(rows):
            head = names[seat] if k == 0 else ""
            kind = types[seat][k] if types is not None else ""
            place = _place(int(places[k])) if places is not None else ""
            lines.append(f"{head:<{width}}{game.row_names[k]:<{row_width}}{pretty_cards(row):<{card_width}}"
                         f"{kind:<{type_width}}{place}".rstrip())
        payoff = f"{payoffs[seat]:+g}" if payoffs is not None else "?"
        notes = "   ".join(seat_notes(breakdown))
        lines.append(f"{'':<{width}}{'payoff':<{row_width}}{payoff:<{card_width}}{notes}".rstrip())
    return "\n".join(lines)
