"""engine.strategy: the card values the built-in bots share, on observations made by hand."""

from __future__ import annotations

import math
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

import engine.strategy as strategy
from bots import BUILTIN_DIR
from engine import Observation
from engine.cards import parse_card
from engine.strategy import (
    CHOPSTICKS_KEEP,
    DECK,
    DENIAL,
    Table,
    View,
    maki_points,
    pudding_points,
)
from tests.bots.helpers import load_bot

ROOT = Path(__file__).resolve().parents[2]


def observe(hand: Sequence[str], tableaux: Sequence[Sequence[str]], *, seat: int = 0,
            known: Sequence[Sequence[str] | None] | None = None,
            sizes: Sequence[int] | None = None, puddings: Sequence[int] | None = None,
            round_: int = 1, variant: Sequence[str] = (), pass_direction: int = 1,
            chopsticks: bool = False) -> Observation:
    """An observation for ``seat`` (cards by name; hand sizes default to this hand's)."""
    n = len(tableaux)
    return Observation(
        seat=seat, players=[f"p{i}" for i in range(n)], round=round_, turn=1,
        hand=[parse_card(c) for c in hand],
        tableaux=[[parse_card(c) for c in t] for t in tableaux],
        puddings=list(puddings or [0] * n), scores=[0] * n,
        known_hands=[None if k is None else [parse_card(c) for c in k]
                     for k in (known or [None] * n)],
        can_use_chopsticks=chopsticks, pass_direction=pass_direction, time_limit=1.0,
        variant=list(variant), hand_sizes=list(sizes or [len(hand)] * n))


# A two-player turn where every hand is known: the cards still circulating are the opponent's
# hand (tempura, egg nigiri, wasabi) and, as 2 picks are left and my hand comes round again, my
# own (tempura, sashimi, maki1): 6 cards, 2 of them tempura. 2 picks left give 2 views.
HAND = ["tempura", "sashimi", "maki1"]
THEIRS = ["tempura", "egg_nigiri", "wasabi"]


def known_flow(mine: Sequence[str] = (), theirs: Sequence[str] = ()) -> View:
    return View(observe(HAND, [mine, theirs], known=[HAND, THEIRS], sizes=[3, 3]))


def test_rates_count_the_known_cards_still_circulating() -> None:
    view = known_flow()
    assert view.left == 2 and view.players == 2 and view.next_seat == 1
    assert view.rates["tempura"] == pytest.approx(2 / 6 * 2)
    for card in ("sashimi", "maki1", "egg_nigiri", "wasabi"):
        assert view.rates[card] == pytest.approx(1 / 6 * 2)
    assert view.rates["squid_nigiri"] == 0.0 and view.rates["dumpling"] == 0.0
    assert "soy_sauce" not in view.rates


def test_a_tempura_is_worth_what_the_table_makes_of_it() -> None:
    odds = 1 - math.exp(-2 / 3)
    assert known_flow().more("tempura") == pytest.approx(odds)
    assert known_flow().value("tempura", 0) == pytest.approx(5 * 0.55 * odds)  # 1.338...
    assert known_flow(["tempura"]).value("tempura", 0) == 5.0  # completes a pair
    assert known_flow(["tempura", "tempura"]).value("tempura", 0) == pytest.approx(5 * 0.55 * odds)
    # ``table`` overrides the seat's own cards (a first chopsticks card placed, say).
    view = known_flow()
    assert view.value("tempura", 0, view.tables[0].plus("tempura")) == 5.0


def test_sashimi_by_the_number_on_the_table() -> None:
    lam = 1 / 3
    assert known_flow(["sashimi", "sashimi"]).value("sashimi", 0) == 10.0
    assert known_flow(["sashimi"]).value("sashimi", 0) == pytest.approx(
        10 * 0.6 * (1 - math.exp(-lam)))
    assert known_flow().value("sashimi", 0) == pytest.approx(
        10 * 0.4 * (1 - math.exp(-lam) * (1 + lam)))  # needs two more


def test_worth_adds_the_value_denied_to_the_next_player() -> None:
    view = known_flow(theirs=["tempura"])  # the next player would complete a pair
    mine = view.value("tempura", 0)
    assert view.value("tempura", 1) == 5.0
    assert view.worth("tempura") == pytest.approx(mine + DENIAL[2] * 5.0)
    # On the last pick nothing is passed on.
    last = View(observe(["tempura"], [[], ["tempura"]]))
    assert last.left == 0 and last.worth("tempura") == 0.0


def test_wasabi_nigiri_dumplings_and_chopsticks() -> None:
    view = known_flow(["wasabi"])
    assert view.value("salmon_nigiri", 0) == 6 and view.value("salmon_nigiri", 1) == 2
    # A wasabi: the odds of a salmon or squid (none circulate) or an egg (counted 0.4).
    assert known_flow().value("wasabi", 0) == pytest.approx(4.5 * (1 - math.exp(-0.4 / 3)))
    assert view.value("wasabi", 0) == pytest.approx(4.5 * (1 - math.exp(-0.4 / 3)) * 0.5)
    assert View(observe(["wasabi"], [[], []])).value("wasabi", 0) == 0.0  # last pick
    # A fifth dumpling adds 5 points and there is nothing more to hope for.
    assert known_flow(["dumpling"] * 4).value("dumpling", 0) == 5
    # Chopsticks are worth keeping only with 3 or more picks left.
    assert known_flow().value("chopsticks", 0) == 0.0
    six = View(observe(["egg_nigiri"] * 7, [[], [], []]))
    assert six.value("chopsticks", 0) == pytest.approx(0.8 + 0.12 * 6)


def test_maki_at_the_end_of_the_round_is_the_exact_change_in_the_standings() -> None:
    # Last pick of a 3-player round: 3 icons against 4 and 1; a maki2 takes first place.
    obs = observe(["maki2"], [["maki3"], ["maki2", "maki2"], ["maki1"]])
    assert View(obs).value("maki2", 0) == 3.0
    assert View(obs).value("maki1", 0) == 0.0  # 4 against 4: still 3 (shared first)
    # Early in the round it is a flat rate per icon (9 cards, 8 picks left).
    early = observe(["maki2"] * 9, [[], [], []])
    late = 1 - 8 / 9
    assert View(early).value("maki2", 0) == pytest.approx((1 - late) * 2 * 0.75 + late * 6)


def test_pudding_in_the_last_pick_of_the_game_is_exact() -> None:
    obs = observe(["pudding"], [[], [], []], puddings=[1, 1, 2], round_=3)
    assert View(obs).value("pudding", 0) == 6.0  # from -3 (shared last) to +3 (shared first)
    first_round = observe(["pudding"], [[], [], []], puddings=[0, 0, 0])
    assert View(first_round).value("pudding", 0) == pytest.approx(0.85 * 2.2 + 0.15 * 6)


def test_soy_sauce_counts_colours_late_in_the_round() -> None:
    obs = observe(["soy_sauce", "tempura"], [["maki1", "maki2", "egg_nigiri"], []],
                  variant=["soy-sauce"])
    view = View(obs)
    assert "soy_sauce" in view.rates
    assert view.tables[0].colours() == 2
    assert view.value("soy_sauce", 0) == 4.0  # 3 colours with it, the most
    assert view.value("soy_sauce", 1) == 0.5  # 1 colour with it against 2
    assert View(observe(["soy_sauce"], [["soy_sauce"], []])).value("soy_sauce", 0) == 0.0
    assert View(observe(["soy_sauce"] * 5, [[], []])).value("soy_sauce", 0) == 2.5


def test_unknown_hands_spread_the_unseen_cards() -> None:
    obs = observe(["sashimi"] * 9, [[], [], []], variant=["soy-sauce"])
    view = View(obs)
    views = max(8 * 9 / 2 * 0.6, 8)
    assert sum(view.rates.values()) == pytest.approx(views)
    # Nothing placed: besides my own hand, the other 18 cards are the unseen deck's average.
    unseen = sum(DECK.values()) + 3 - 9
    assert view.rates["squid_nigiri"] / view.rates["salmon_nigiri"] == pytest.approx(5 / 10)
    assert view.rates["soy_sauce"] == pytest.approx(18 * 3 / unseen / 27 * views)


def test_more_is_zero_beyond_the_picks_left() -> None:
    view = View(observe(["sashimi", "sashimi"], [[], []]))
    assert view.left == 1
    assert view.more("sashimi", 2) == 0.0
    assert 0.0 < view.more("sashimi") < 1.0
    assert view.more("no_such_card") == 0.0


def test_weights_can_be_overridden_on_a_subclass() -> None:
    class Eager(View):
        tempura_start = 1.0

    obs = observe(HAND, [[], THEIRS], known=[HAND, THEIRS], sizes=[3, 3])
    assert Eager(obs).value("tempura", 0) == pytest.approx(5 * (1 - math.exp(-2 / 3)))
    assert View(obs).tempura_start == strategy.TEMPURA_START == 0.55
    assert View.chopsticks_keep == CHOPSTICKS_KEEP


def test_table() -> None:
    table = Table(["wasabi", "maki3", "egg_nigiri", "wasabi"])
    assert table.open_wasabi == 1 and table.icons == 3
    assert table.counts["wasabi"] == 2 and table.counts["tempura"] == 0
    after = table.plus("squid_nigiri")
    assert after.open_wasabi == 0 and table.open_wasabi == 1
    assert after.counts["squid_nigiri"] == 1 and table.counts["squid_nigiri"] == 0
    assert after.colours() == 3  # wasabi, maki, nigiri


@pytest.mark.parametrize(("mine", "others", "points"), [
    (0, [0, 0], 0), (5, [3, 2], 6), (5, [5], 3), (5, [5, 5], 2), (3, [5, 2], 3),
    (3, [5, 3], 1), (3, [5, 5], 0), (1, [5, 4, 3], 0),
])
def test_maki_points(mine: int, others: list[int], points: int) -> None:
    assert maki_points(mine, others) == points


@pytest.mark.parametrize(("counts", "seat", "points"), [
    ([3, 1, 1], 0, 6), ([3, 1, 1], 1, -3), ([2, 2, 2], 0, 0), ([3, 3, 1], 0, 3),
    ([3, 1], 1, 0), ([3, 1], 0, 6), ([4, 2, 2, 0], 3, -6),
])
def test_pudding_points(counts: list[int], seat: int, points: int) -> None:
    assert pudding_points(counts, seat) == points


def test_every_public_name_is_documented() -> None:
    assert strategy.__doc__ and "from engine.strategy import" in strategy.__doc__
    for name in strategy.__all__:
        value = getattr(strategy, name)
        if callable(value):
            assert value.__doc__, name
    for method in ("more", "value", "worth"):
        assert getattr(View, method).__doc__, method


def test_the_bots_share_it_rather_than_copy_it() -> None:
    for name in ("heuristic.py", "mcts"):  # mcts: a folder bot
        bot = load_bot(BUILTIN_DIR / name)
        assert bot.View is View
        assert not hasattr(bot, "Table") and not hasattr(bot, "DECK")
    assert load_bot(BUILTIN_DIR / "greedy.py").maki_points is maki_points


def test_the_heuristic_completes_a_pair_and_uses_chopsticks() -> None:
    heuristic = load_bot(BUILTIN_DIR / "heuristic.py")
    hand = ["egg_nigiri", "pudding", "tempura", "chopsticks"]
    assert heuristic.pick(observe(hand, [["tempura"], []])) == "tempura"
    pair = heuristic.pick(observe(["sashimi", "sashimi", "egg_nigiri", "maki1"],
                                  [["sashimi", "chopsticks"], []], chopsticks=True))
    assert pair == ["sashimi", "sashimi"]


def test_importing_it_stays_cheap() -> None:
    """No ``typing`` and nothing beyond engine.cards (and the package's lazy facade, which
    imports only ``sys``): a bot process's start-up stays short."""
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import engine.strategy; "
            "print(sorted(m for m in sys.modules if m.startswith('engine') or m == 'typing'))")
    out = subprocess.run([sys.executable, "-S", "-s", "-c", code, str(ROOT)], check=True,
                         capture_output=True, text=True).stdout
    assert out.strip() == "['engine', 'engine.cards', 'engine.facade', 'engine.strategy']"
