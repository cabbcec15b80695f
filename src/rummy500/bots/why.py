"""Why one move is better than another, in a player's words, from facts the seat can state.

:func:`why` builds a sentence such as "Discard 9♣ rather than 7♥: 7♥ goes with 8♥ (6♥ 9♥ can
still come); 9♣ goes with none of your other cards." from what the seat's observation shows:
the melds its hand makes (:func:`~rummy500.bots.reading.read_hand`), the cards that would
complete them and whether they are still live or already gone (in the discard pile, on the
table, known in another hand), what the others are known to hold, where a card fits the table,
and the points left in hand. Game review says it for each move that lost points; hints say it
for the move they suggest. Every text goes through gettext.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from rummy500.bots.evaluate import Evaluation
from rummy500.bots.reading import Reading, read_hand, table_fits
from rummy500.engine import (
    JOKER,
    MeldView,
    Move,
    Observation,
    card_counts,
    card_values,
    decks_for,
    physical,
    seat_str,
)
from rummy500.engine.melds import analyze_meld, can_meld_with
from rummy500.engine.reasons import card_label, cards_label, played_label
from rummy500.i18n import _, ngettext

__all__ = ["move_label", "why"]


def move_label(move: Move, obs: Observation) -> str:
    """A move as a short instruction for ``obs.seat``: "Discard 9♣", "Take 3 cards down to
    the 5♦", "Meld 4♥ 5♥ 6♥", "Lay off 8♥ on meld 2"."""
    verb = move.verb
    if verb == "draw":
        return _("Draw from the stock")
    if verb == "take":
        card = card_label(obs.discard_pile[-move.number])
        if move.number == 1:
            return _("Take the {card}").format(card=card)
        return _("Take {n} cards down to the {card}").format(n=move.number, card=card)
    if verb == "rummy":
        return _("Call Rummy! for the {card}").format(
            card=card_label(obs.discard_pile[-move.number])
        )
    if verb == "pass":
        return _("Let the call go")
    if verb == "end":
        return _("End the hand")
    if verb == "meld":
        return _("Meld {cards}").format(cards=cards_label(move.cards))
    if verb == "layoff":
        return _("Lay off {card} on meld {n}").format(
            card=played_label(move.cards[0]), n=move.number
        )
    return _("Discard {card}").format(card=card_label(move.cards[0]))


class _Facts:
    """What the seat can state about its cards, computed once per sentence."""

    def __init__(self, obs: Observation) -> None:
        self.obs = obs
        self.values = obs.rules.values
        self.val = card_values(self.values)
        self.table = table_fits(obs.melds)
        copies = decks_for(obs.players)
        gone = [0] * 53
        for c in obs.discard_pile:
            gone[c] += 1
        for m in obs.melds:
            for c in m.cards:
                gone[physical(c)] += 1
        for s, cards in enumerate(obs.known):
            if s != obs.seat:
                for c in cards:
                    gone[c] += 1
        mine = card_counts(obs.hand)
        #: copies of each natural card the seat may still get
        self.live = [max(copies - gone[c] - mine[c], 0) for c in range(52)]
        self._reading: Reading | None = None

    def reading(self, hand: Sequence[int] | None = None) -> Reading:
        if hand is None:
            if self._reading is None:
                self._reading = read_hand(self.obs.hand, self.table, self.values)
            return self._reading
        return read_hand(hand, self.table, self.values)

    def left(self, hand: Sequence[int]) -> int:
        """Points left in ``hand`` once its best melds and lay-offs are played."""
        return sum(self.val[c] for c in self.reading(hand).deadwood)

    def partners(self, card: int, hand: Sequence[int]) -> list[tuple[int, list[int]]]:
        """The cards of ``hand`` that could make a meld with ``card`` and one more card, each
        with the cards that would complete it."""
        found = []
        rank, suit = card % 13, card // 13
        for other in sorted(set(hand) - {card, JOKER}):
            orank, osuit = other % 13, other // 13
            outs: list[int] = []
            if orank == rank:
                outs = [rank + 13 * s for s in range(4) if s not in (suit, osuit)]
            elif osuit == suit:
                lo, hi = sorted((rank, orank))
                if lo == 0 and hi >= 11:  # the ace above the king
                    lo, hi = hi, 13
                gap = hi - lo
                base = suit * 13
                if gap == 1:
                    outs = [base + p % 13 for p in (lo - 1, hi + 1) if 0 <= p <= 13]
                elif gap == 2:
                    outs = [base + lo + 1]
            if outs:
                found.append((other, outs))
        return found

    def in_meld(self, card: int) -> tuple[int, ...] | None:
        return next((m for m in self.reading().melds if card in m), None)

    def name(self, seat: int, names: Sequence[str] | None) -> str:
        return names[seat] if names is not None else seat_str(seat)

    # --- what a discard gives up, and why another costs nothing ------------------------------

    def discard_costs(self, card: int, names: Sequence[str] | None) -> list[str]:
        """Why ``card`` should be kept."""
        said: list[str] = []
        obs = self.obs
        label = card_label(card)
        if card == JOKER:
            return [_("a joker can stand for any card and is worth 15 points on the table")]
        meld = self.in_meld(card)
        if meld is not None:
            said.append(
                _("{card} is part of {meld} in your hand").format(
                    card=label, meld=cards_label(meld)
                )
            )
        if card in self.table.fits:
            said.append(
                _("{card} fits a meld on the table: whoever takes it scores it").format(card=label)
            )
        for s, known in enumerate(obs.known):
            if s != obs.seat and known and can_meld_with(card, card_counts([*known, card])):
                said.append(
                    _("{name} took {cards} from the pile: {card} gives them a meld").format(
                        name=self.name(s, names), cards=cards_label(known), card=label
                    )
                )
        if meld is None:
            for other, outs in self.partners(card, obs.hand):
                live = [c for c in outs if self.live[c]]
                if live:
                    said.append(
                        _("{card} goes with {other}, and {outs} can still come").format(
                            card=label, other=card_label(other), outs=cards_label(live)
                        )
                    )
                    break
        return said

    def discard_spares(self, card: int) -> list[str]:
        """Why ``card`` can go."""
        obs = self.obs
        label = card_label(card)
        said: list[str] = []
        partners = self.partners(card, obs.hand)
        if self.in_meld(card) is None:
            if not partners:
                said.append(_("{card} goes with none of your other cards").format(card=label))
            else:
                outs = sorted({c for _o, cs in partners for c in cs})
                if not any(self.live[c] for c in outs):
                    said.append(
                        ngettext(
                            "the {cards} that would go with {card} is already gone",
                            "the {cards} that would go with {card} are already gone",
                            len(outs),
                        ).format(cards=cards_label(outs), card=label)
                    )
        if card != JOKER and self.val[card] >= 10:
            said.append(
                _("{card} would cost {points} points if it were caught in your hand").format(
                    card=label, points=self.val[card]
                )
            )
        return said

    # --- takes, draws, melds ------------------------------------------------------------------

    def after_take(self, move: Move) -> tuple[list[int], Reading]:
        taken = list(self.obs.discard_pile[-move.number :])
        return taken, self.reading([*self.obs.hand, *taken])

    def take_gains(self, move: Move) -> list[str]:
        taken, r = self.after_take(move)
        deepest = taken[0]
        said = []
        meld = next((m for m in r.melds if deepest in m), None)
        if meld is not None:
            rest = Counter(meld)
            rest[deepest] -= 1
            held = Counter(self.obs.hand)
            from_hand = all(held[c] >= n for c, n in rest.items())
            text = (
                _("the {card} makes {meld} with your cards")
                if from_hand
                else _("the {card} makes {meld} with the cards taken with it")
            )
            said.append(text.format(card=card_label(deepest), meld=cards_label(meld)))
        elif deepest in r.layoffs:
            said.append(
                _("the {card} can be laid off on the table").format(card=card_label(deepest))
            )
        return said

    def take_costs(self, move: Move) -> list[str]:
        taken, r = self.after_take(move)
        before = self.left(self.obs.hand)
        after = sum(self.val[c] for c in r.deadwood)
        said = []
        if after > before:
            said.append(
                ngettext(
                    "the card you take leaves {more} more points in your hand",
                    "the {n} cards you take leave {more} more points in your hand",
                    len(taken),
                ).format(n=len(taken), more=after - before)
            )
        if not self.take_gains(move):
            said.append(
                _("the {card} makes no meld with your cards").format(card=card_label(taken[0]))
            )
        return said

    def play_gains(self, move: Move) -> list[str]:
        """A meld or lay-off: the points it puts out of reach."""
        points = sum(15 if physical(c) == JOKER else self.val[physical(c)] for c in move.cards)
        return [
            ngettext(
                "{cards} scores {points} points on the table now; in your hand it counts "
                "against you if the hand ends",
                "{cards} score {points} points on the table now; in your hand they count "
                "against you if the hand ends",
                len(move.cards),
            ).format(cards=cards_label(move.cards), points=points)
        ]

    def play_costs(self, move: Move) -> list[str]:
        """A meld or lay-off played too soon: where it lets the others lay off."""
        if move.verb != "meld":
            return []
        spots = table_fits([*self.obs.melds, _meld_view(move)]).fits - self.table.fits
        live = sorted(c for c in spots if self.live[c])
        if not live:
            return []
        return [
            _("melding {cards} now lets the others lay off {spots} on it").format(
                cards=cards_label(move.cards), spots=cards_label(live)
            )
        ]

    def plain(self, move: Move) -> list[str]:
        """What can be said for ``move`` when nothing sharper can (a hint's last resort)."""
        obs = self.obs
        verb = move.verb
        if verb == "draw":
            top = obs.discard_pile[-1] if obs.discard_pile else None
            if top is None:
                return []
            if can_meld_with(top, card_counts([*obs.hand, top])):
                return [
                    _("the {card} is worth less to you than a card from the stock").format(
                        card=card_label(top)
                    )
                ]
            return [_("the {card} makes no meld with your cards").format(card=card_label(top))]
        if verb == "pass":
            return [_("the cards you could claim are worth less than they cost")]
        if verb == "end":
            return [_("nothing in the discard pile is worth taking")]
        if verb in ("take", "rummy"):
            return [
                _("the {card} goes with your hand better than a card from the stock").format(
                    card=card_label(obs.discard_pile[-move.number])
                )
            ]
        if verb == "discard":
            return [_("the rest of your hand is worth more together")]
        return []

    def left_after(self, move: Move) -> int | None:
        """Points left in hand after a meld, lay-off or discard (``None`` for other moves)."""
        if move.verb not in ("meld", "layoff", "discard"):
            return None
        hand = list(self.obs.hand)
        for c in move.cards:
            card = physical(c)
            if card in hand:
                hand.remove(card)
        return self.left(hand)


def _meld_view(move: Move) -> MeldView:
    """A meld about to be made, as the table would show it (for where it could be laid off)."""
    is_run, _key, _lo, _hi, cards = analyze_meld(move.cards)
    return MeldView(0, is_run, cards, tuple(move.seat for _c in cards))


def _gains(facts: _Facts, move: Move) -> list[str]:
    verb = move.verb
    if verb in ("take", "rummy"):
        return facts.take_gains(move)
    if verb in ("meld", "layoff"):
        return facts.play_gains(move)
    if verb == "discard":
        return facts.discard_spares(move.cards[0])
    return []


def _costs(facts: _Facts, move: Move, names: Sequence[str] | None) -> list[str]:
    verb = move.verb
    if verb in ("take", "rummy"):
        return facts.take_costs(move)
    if verb in ("meld", "layoff"):
        return facts.play_costs(move)
    if verb == "discard":
        return facts.discard_costs(move.cards[0], names)
    return []


def why(
    obs: Observation,
    better: Move,
    played: Move | None = None,
    *,
    names: Sequence[str] | None = None,
    gain: float | None = None,
    evaluation: Evaluation | None = None,
) -> str:
    """Why ``better`` is the move for ``obs.seat`` (rather than ``played``, when given), in one
    sentence of facts the seat can see. With the ``evaluation`` that compared them, what the
    sampled deals showed is said too (how often each move let the seat go out, how often a
    discard was picked up at once); ``gain``, the points ``better`` is expected to gain, is said
    when nothing else explains it. ``names`` say what each seat is called (``P1``… if not
    given)."""
    facts = _Facts(obs)
    head = move_label(better, obs)
    if played is not None and played != better:
        head = _("{better} rather than {played}").format(
            better=head, played=_lower_first(move_label(played, obs))
        )
        reasons = [*_costs(facts, played, names), *_gains(facts, better)]
        if evaluation is not None:
            reasons.extend(_sampled(evaluation, better, played))
    else:
        reasons = _gains(facts, better)
    if not reasons:
        left = facts.left_after(better)
        other = facts.left_after(played) if played is not None else None
        if left is not None and other is not None and left < other:
            reasons.append(
                _("it leaves {points} points in your hand instead of {other}").format(
                    points=left, other=other
                )
            )
        elif better.verb == "draw" and played is not None and played.verb in ("take", "rummy"):
            reasons = facts.take_costs(played)
        elif played is None or gain is None:
            reasons = facts.plain(better)
    if not reasons and gain is not None:
        reasons.append(
            _("over the sampled deals it scores about {points} points more").format(
                points=round(gain)
            )
        )
    if not reasons:
        return head + "."
    return _("{move}: {reasons}.").format(move=head, reasons="; ".join(reasons))


def _sampled(evaluation: Evaluation, better: Move, played: Move) -> list[str]:
    """What the evaluator's sampled deals showed about the two moves."""
    good, bad = evaluation.value(better), evaluation.value(played)
    if good is None or bad is None:
        return []
    n = evaluation.samples
    said = []
    if good.went_out - bad.went_out >= max(2, n // 5):
        said.append(
            _("you go out first in {a} of {n} sampled deals, against {b}").format(
                a=good.went_out, n=n, b=bad.went_out
            )
        )
    if (
        played.verb == "discard"
        and bad.picked_up >= max(2, n // 4)
        and (better.verb != "discard" or good.picked_up < bad.picked_up)
    ):
        said.append(
            _("another player picks up the {card} at once in {k} of {n} sampled deals").format(
                card=card_label(played.cards[0]), k=bad.picked_up, n=n
            )
        )
    return said


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]
