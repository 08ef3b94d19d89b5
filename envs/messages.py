"""Values in error messages: any value echoed by a message is cut short, so that no error
line repeats a huge input whole. Pure: standard library."""

from __future__ import annotations


def cut(text: str, limit: int) -> str:
    """``text`` when it has at most ``limit`` characters, else its first ``limit`` and "...".

    >>> cut("abcdef", 3)
    'abc...'
    """
    return text if len(text) <= limit else text[:limit] + "..."
