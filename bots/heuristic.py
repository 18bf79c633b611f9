"""heuristic: a hand-written Sushi Go! strategy that reasons about the cards still to come.

Every kind of card in the hand gets an expected value in points, and the best one is kept:

* Card flow. The cards this seat has not seen (deck minus every placed card, its hand and the
  hands it knows) are spread over the hands it does not know; with the known hands this gives,
  for each kind, the share of the cards still circulating. A Poisson estimate turns that share
  and the number of picks left this round into the odds of getting one (or two) more of a kind.
* Sets. A tempura completing a pair is worth 5, a sashimi completing a triple 10; a card that
  starts or extends a set is worth its share of the set times the odds of completing it.
  Dumplings count what they add now plus a little for the next one.
* Wasabi and nigiri. A nigiri on an open wasabi scores triple; a wasabi is worth the odds of a
  salmon or squid still coming times the bonus, and nothing on the last pick.
* Races. Maki icons are worth a flat rate early in the round and, as the round ends, exactly what
  they change in the current maki standings against the other tables. Puddings likewise move
  from a flat rate in round 1 to their exact effect on the pudding standings in round 3.
* Timing. Chopsticks are worth something only early in the round; they are used when the best
  two cards together beat the best one by more than chopsticks are worth keeping.
* Denial. Part of what a card is worth to the player this hand is passed to is added, so a
  set-completing card is taken away from them when the choice is close.

In the two-player dummy variant the dummy's card is the one the opponent would like most.
Deterministic: it draws no random numbers.

The card values and their tunable weights live in ``engine.strategy`` (``View``), which any bot
may import; this file adds the choice of a card, the chopsticks and the dummy's card.
"""

from engine.strategy import View


def best_single(view, kinds):
    """The kind worth the most to me (denial included); ties go to the first in hand."""
    return max(kinds, key=lambda c: (view.worth(c), -kinds.index(c)))


def choose(obs):
    """This turn's pick: a card name, or a pair of names when chopsticks pay off."""
    view = View(obs)
    kinds = list(dict.fromkeys(view.hand))
    if obs.for_dummy:
        # The dummy gets the card the opponent (who receives this hand) would value most,
        # unless it helps the dummy's maki or pudding race against me too much.
        opponent = 1 - obs.seat
        return max(kinds, key=lambda c: (view.value(c, opponent) - 0.5 * view.value(c, 2),
                                         -kinds.index(c)))
    first = best_single(view, kinds)
    if not obs.can_use_chopsticks or len(view.hand) < 2:
        return first
    # Chopsticks: the best ordered pair, the second card valued after the first is placed.
    mine = view.tables[obs.seat]
    best_pair, best_total = None, -1.0
    ranked = sorted(kinds, key=lambda c: -view.worth(c))[:4]
    for a in ranked:
        rest = list(view.hand)
        rest.remove(a)
        after = mine.plus(a)
        for b in dict.fromkeys(rest):
            total = view.worth(a) + view.worth(b, after)
            if total > best_total:
                best_pair, best_total = [a, b], total
    if best_pair is not None and best_total - view.worth(first) > view.chopsticks_keep:
        return best_pair
    return first


def pick(obs):
    return choose(obs)
