"""What the others are likely to hold, from what they threw away: weighted deals for the search.

A player keeps the cards that go with their hand and discards the rest, so a card that would
meld with one an opponent discarded this hand — the same rank, or the same suit one or two
ranks away — is less likely to be in that opponent's hand than a card chosen at random; so is,
to a lesser degree, a card that goes with one they passed over (drew from the stock instead of
taking it from the top of the pile).
:func:`card_weights` turns an observation into a weight per unseen card and opponent (1 for no
evidence, lower for a card that goes with their discards), and :func:`weighted_state` deals the
unseen cards by those weights (each opponent's unknown cards drawn without replacement in
proportion to their weights; the rest is the stock, in random order) into a full game
consistent with the observation, as :meth:`~rummy500.engine.Game.from_observation` does at
random.

The weights are likelihood ratios measured in self-play (:func:`measure_ratios`, the figures in
:data:`RATIOS`): how often an unseen card with a given relation to an opponent's discards was
in that opponent's hand, against a card with none.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rummy500.bots.base import Bot
from rummy500.bots.intermediate import IntermediateBot
from rummy500.engine import JOKER, Game, Observation, unseen_cards

__all__ = ["RATIOS", "Ratios", "card_weights", "measure_ratios", "relation", "weighted_state"]

#: The relations of a card to a discard, strongest first (a card takes its strongest).
RELATIONS = ("rank", "next", "gap")


@dataclass(frozen=True, slots=True)
class Ratios:
    """How much likelier (below 1: less likely) an unseen card is in an opponent's hand when it
    goes with a card that opponent discarded this hand (or passed over: drew from the stock
    when it was the top of the pile), than a card that goes with none. A card's weight is the
    product of its strongest relation to the discards and its strongest to the cards passed
    over."""

    #: the same rank as a discard (a set with it)
    rank: float
    #: the same suit as a discard, one rank away (a run with it)
    next: float
    #: the same suit as a discard, two ranks away
    gap: float
    #: the same rank as a card passed over
    passed_rank: float = 1.0
    #: the same suit as a card passed over, one rank away
    passed_next: float = 1.0
    #: the same suit as a card passed over, two ranks away
    passed_gap: float = 1.0

    def of(self, name: str, passed: bool = False) -> float:
        """The ratio of a relation of :data:`RELATIONS` to a discard, or to a card passed over."""
        return float(getattr(self, f"passed_{name}" if passed else name))


#: Measured by ``measure_ratios(games=1000, seed=1)`` (intermediate players, 2 seats, standard
#: rules; 1.8 million unseen cards looked at, 80 s): a card of the same rank as a discard is in the
#: discarder's hand about a quarter as often as one that goes with nothing it threw away or
#: passed over.
RATIOS = Ratios(
    rank=0.254, next=0.491, gap=0.657, passed_rank=0.425, passed_next=0.741, passed_gap=0.895
)


def relation(card: int, discard: int) -> str | None:
    """How ``card`` goes with ``discard``: ``"rank"``, ``"next"``, ``"gap"`` or ``None``."""
    if card == JOKER or discard == JOKER:
        return None
    if card % 13 == discard % 13:
        return "rank"
    if card // 13 == discard // 13:
        step = abs(card % 13 - discard % 13)
        if step == 1:
            return "next"
        if step == 2:
            return "gap"
    return None


def _strongest(card: int, discards: Sequence[int]) -> str | None:
    found = None
    for d in discards:
        r = relation(card, d)
        if r is not None and (found is None or RELATIONS.index(r) < RELATIONS.index(found)):
            found = r
            if r == "rank":
                break
    return found


def _evidence(obs: Observation) -> tuple[list[list[int]], list[list[int]]]:
    """Each seat's discards of this hand, and the cards it passed over (the top of the pile,
    discarded by another seat just before, when it drew from the stock)."""
    discards: list[list[int]] = [[] for _ in range(obs.players)]
    passed: list[list[int]] = [[] for _ in range(obs.players)]
    last: tuple[int, int] | None = None  # the last discard: (seat, card)
    for m in obs.history:
        if m.verb == "discard":
            discards[m.seat].append(m.cards[0])
            last = (m.seat, m.cards[0])
        elif m.verb == "draw":
            if last is not None and last[0] != m.seat:
                passed[m.seat].append(last[1])
            last = None
        elif m.verb != "pass":
            last = None
    return discards, passed


def card_weights(obs: Observation, ratios: Ratios = RATIOS) -> list[dict[int, float]]:
    """For each seat, the weight of each unseen card being in that hand (1 for a card that goes
    with none of its discards or cards passed over; empty for the seat itself)."""
    unseen = sorted(set(unseen_cards(obs)))
    discards, passed = _evidence(obs)
    weights: list[dict[int, float]] = []
    for s in range(obs.players):
        w: dict[int, float] = {}
        if s != obs.seat:
            for c in unseen:
                weight = 1.0
                r = _strongest(c, discards[s])
                if r is not None:
                    weight = ratios.of(r)
                r = _strongest(c, passed[s])
                if r is not None:
                    weight *= ratios.of(r, passed=True)
                w[c] = weight
        weights.append(w)
    return weights


def weighted_state(
    obs: Observation,
    rng: random.Random,
    ratios: Ratios = RATIOS,
    weights: Sequence[dict[int, float]] | None = None,
) -> Game:
    """A full game consistent with ``obs``, the others' unknown cards dealt by
    :func:`card_weights` (Efraimidis–Spirakis sampling without replacement), the stock shuffled.
    A search dealing many games from one observation passes its ``card_weights(obs)`` once as
    ``weights`` (``ratios`` is then not used)."""
    pool = unseen_cards(obs)
    if weights is None:
        weights = card_weights(obs, ratios)
    order: list[int] = []
    for s in range(obs.players):
        if s == obs.seat:
            continue
        need = obs.hand_sizes[s] - len(obs.known[s])
        if need <= 0:
            continue
        w = weights[s]
        keyed = sorted(range(len(pool)), key=lambda i: -(rng.random() ** (1.0 / w[pool[i]])))
        chosen = set(keyed[:need])
        order.extend(pool[i] for i in keyed[:need])
        pool = [c for i, c in enumerate(pool) if i not in chosen]
    rng.shuffle(pool)
    order.extend(pool)
    return Game.from_observation(obs, rng, deal=order)


def measure_ratios(
    games: int = 300, seed: int = 1, players: int = 2, bot: Callable[..., Bot] = IntermediateBot
) -> tuple[Ratios, dict[str, tuple[int, int]]]:
    """Play ``games`` games of ``bot`` against itself and count, at every draw of every seat,
    how often an unseen card with each relation to an opponent's discards is in that opponent's
    hand (and with none), and the same for the cards it passed over. Returns the ratios and, per
    pair of relations (``"rank/none"``: the rank of a discard, nothing passed over), how many
    such cards were in the hand and how many were looked at.

    ``bot`` makes each seat's player from a seed (``bot(seed=…)``): the intermediate player,
    or another, e.g. ``functools.partial(make_bot, "expert")`` (this module is one the levels
    are made of, so it names none of them by its level).

    This is how :data:`RATIOS` was made (1,000 games, about 80 s)."""
    counts = {(d, p): [0, 0] for d in (*RELATIONS, None) for p in (*RELATIONS, None)}
    rng = random.Random(seed)
    for _g in range(games):
        game = Game.new(players, seed=rng.getrandbits(63), max_moves_per_hand=400)
        bots = [bot(seed=rng.getrandbits(32)) for _ in range(players)]
        for _hand in range(20):
            _count_hand(game, bots, counts)
            if game.is_game_over():
                break
            game.deal()

    def rate(key: tuple[str | None, str | None]) -> float:
        held, seen = counts[key]
        return held / seen if seen else 0.0

    base = rate((None, None))
    found: dict[str, float] = {}
    for r in RELATIONS:
        # each kind of evidence among the cards without the other
        found[r] = round(rate((r, None)) / base, 3) if base else 1.0
        found[f"passed_{r}"] = round(rate((None, r)) / base, 3) if base else 1.0
    table = {
        f"{d or 'none'}/{p or 'none'}": (held, seen) for (d, p), (held, seen) in counts.items()
    }
    return Ratios(**found), table


def _count_hand(
    game: Game, bots: Sequence[Bot], counts: dict[tuple[str | None, str | None], list[int]]
) -> None:
    players = game.players
    while not game.is_hand_over():
        actor = game.to_act
        assert actor is not None
        obs = game.observation(actor)
        if obs.phase == "draw":
            discards, passed = _evidence(obs)
            unseen = set(unseen_cards(obs))
            for s in range(players):
                if s == actor:
                    continue
                held = set(game.hand(s)) - set(obs.known[s])
                for c in unseen:
                    key = (_strongest(c, discards[s]), _strongest(c, passed[s]))
                    counts[key][0] += c in held
                    counts[key][1] += 1
        game.play(bots[actor].choose(obs, game.legal_moves()))
