"""Values built to break code that assumes ordinary input: shared by the bad-input tests of tools and gate."""

from __future__ import annotations


class Unprintable:
    """A value whose text, equality and hash all raise."""

    def __repr__(self) -> str:
        raise RuntimeError("no repr")

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("no eq")

    def __hash__(self) -> int:
        raise RuntimeError("no hash")


class UnprintableKey(Unprintable):
    """The same, but usable as a dict key: only its hash works."""

    def __hash__(self) -> int:
        return 1


def deeply_nested(levels: int = 100_000) -> list:
    """A list nested `levels` deep: [[[...]]]."""
    value: list = []
    for _ in range(levels):
        value = [value]
    return value
