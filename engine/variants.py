"""The rule variants a game can switch on, by the names INTERFACES.md fixes."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

__all__ = ["Variant", "parse_variants"]


class Variant(StrEnum):
    """A rule variant; its value is the name used by ``--variant`` and in game records."""

    PASS_BOTH_WAYS = "pass-both-ways"
    TWO_PLAYER_DUMMY = "two-player-dummy"
    SOY_SAUCE = "soy-sauce"


def parse_variants(names: Iterable[str | Variant]) -> tuple[Variant, ...]:
    """The variants named, deduplicated, in canonical order; ``ValueError`` names a bad one."""
    chosen = set()
    for name in names:
        try:
            chosen.add(Variant(name))
        except ValueError:
            known = ", ".join(v.value for v in Variant)
            raise ValueError(f"unknown variant {name!r} (known: {known})") from None
    return tuple(v for v in Variant if v in chosen)
