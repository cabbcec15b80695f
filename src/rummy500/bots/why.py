"""Why one move is better than another, in a player's words, from facts the seat can state.

:func:`why` builds a sentence such as "Discard 9♣ rather than 7♥: 7♥ goes with 8♥, and 6♥ 9♥
can still come; 9♣ goes with none of your other cards." from what the seat's observation shows:
the melds its hand makes (:func:`~rummy500.bots.reading.read_hand`), the cards that would
complete them and whether they can still come or are gone for good (on the table, or known in
another hand), what the others are known to hold, where a card fits the table, the points a
move scores and the points left in hand, and what the evaluator's sampled deals showed. Game
review says it for each move that lost points; hints say it for the move they suggest.

The facts are data first (:func:`explain` gives an :class:`Explanation`: the move, the move it
is compared with, and a :class:`Reason` per fact, with its cards and numbers), sentences second
(:func:`say`, every text through gettext): each reason is a claim about the position that can
be checked against the game.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from rummy500.bots.evaluate import Evaluation
from rummy500.bots.reading import Reading, play_points, read_hand, table_fits
from rummy500.engine import (
    JOKER,
    IllegalMove,
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
from rummy500.engine.reasons import card_name, cards_name, played_name
from rummy500.i18n import _, ngettext

__all__ = [
    "Explanation",
    "Reason",
    "ReasonCode",
    "breaks_up",
    "explain",
    "move_label",
    "say",
    "why",
]

#: What a reason claims (the fields of :class:`Reason` each one uses are listed there).
ReasonCode = Literal[
    "joker",
    "in_meld",
    "fits_table",
    "gives_meld",
    "goes_with",
    "lone",
    "outs_gone",
    "costly",
    "take_meld",
    "take_meld_taken",
    "take_layoff",
    "take_more",
    "take_no_meld",
    "scores",
    "opens_spots",
    "leaves",
    "went_out",
    "picked_up",
    "gain",
    "stock_better",
    "claim_costs",
    "pile_worthless",
    "take_better",
    "hand_together",
]


@dataclass(frozen=True, slots=True)
class Reason:
    """One fact of a sentence of why, as data. ``code`` says what it claims:

    - ``joker``: ``card`` is a joker, worth ``points`` on the table;
    - ``in_meld``: ``card`` is part of the meld ``cards``, all in the seat's hand;
    - ``fits_table``: ``card`` can be laid off on a meld of the table;
    - ``gives_meld``: ``seat`` took ``cards`` from the pile and still holds them; ``card`` makes
      a meld with some of them;
    - ``goes_with``: ``card`` and ``other`` (in the hand) make a meld with each card of
      ``cards``, and each of those can still come (no copy is in the seat's sight);
    - ``lone``: ``card`` makes a meld with no other card of the hand and any third card;
    - ``outs_gone``: every card that would make a meld with ``card`` and a card of the hand is
      in ``cards``, and every copy of them is on the table or known in another hand;
    - ``costly``: ``card`` counts ``points`` (10 or more) in a hand;
    - ``take_meld`` / ``take_meld_taken``: ``card``, the deepest card taken, makes the meld
      ``cards`` with the seat's cards / with cards taken with it;
    - ``take_layoff``: ``card``, the deepest card taken, can be laid off on the table;
    - ``take_more``: taking ``k`` cards leaves ``points`` more points of cards that make no
      meld in the hand (its best reading);
    - ``take_no_meld``: ``card`` makes no meld with the seat's cards (and those taken with it);
    - ``scores``: the meld or lay-off of ``cards`` scores ``points`` on the table, as the
      engine counts them;
    - ``opens_spots``: putting down the meld ``cards`` would let the others lay off each card
      of ``spots`` on it (none fits the table now), and each can still come;
    - ``leaves``: after the move, the cards that make no meld count ``points``, against
      ``than`` after the other move;
    - ``went_out``: the seat went out first in ``k`` of ``n`` sampled deals after the move, in
      ``than`` after the other;
    - ``picked_up``: another seat took ``card`` at once in ``k`` of ``n`` sampled deals;
    - ``gain``: over the sampled deals the move scores about ``points`` points more;
    - ``stock_better``, ``claim_costs``, ``pile_worthless``, ``take_better``,
      ``hand_together``: a hint's last resort when it is compared with no other move, the
      search's judgement in words (``card``: the top of the pile, which makes a meld with the
      hand, for the first; the deepest card taken for the fourth).
    """

    code: ReasonCode
    card: int = -1
    cards: tuple[int, ...] = ()
    other: int = -1
    seat: int = -1
    points: int = 0
    than: int = 0
    k: int = 0
    n: int = 0
    spots: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Explanation:
    """Why ``move`` (rather than ``instead``, when given): its reasons, in the order said."""

    move: Move
    instead: Move | None
    reasons: tuple[Reason, ...]


def move_label(move: Move, obs: Observation) -> str:
    """A move as a short instruction for ``obs.seat``: "Discard 9♣", "Take 3 cards down to
    the 5♦", "Meld 4♥ 5♥ 6♥", "Lay off 8♥ on meld 2"."""
    verb = move.verb
    if verb == "draw":
        return _("Draw from the stock")
    if verb == "take":
        card = card_name(obs.discard_pile[-move.number])
        if move.number == 1:
            return _("Take the {card}").format(card=card)
        return _("Take {n} cards down to the {card}").format(n=move.number, card=card)
    if verb == "rummy":
        return _("Call Rummy! for the {card}").format(
            card=card_name(obs.discard_pile[-move.number])
        )
    if verb == "pass":
        return _("Let the call go")
    if verb == "end":
        return _("End the hand")
    if verb == "meld":
        return _("Meld {cards}").format(cards=cards_name(move.cards))
    if verb == "layoff":
        return _("Lay off {card} on meld {n}").format(
            card=played_name(move.cards[0]), n=move.number
        )
    return _("Discard {card}").format(card=card_name(move.cards[0]))


class _Facts:
    """What the seat can state about its cards, computed once per sentence."""

    def __init__(self, obs: Observation) -> None:
        self.obs = obs
        self.values = obs.rules.values
        self.val = card_values(self.values)
        self.table = table_fits(obs.melds)
        self.copies = decks_for(obs.players)
        #: copies of each card on the table, and known in another hand
        self.placed = [0] * 53
        in_pile = [0] * 53
        for c in obs.discard_pile:
            in_pile[c] += 1
        for m in obs.melds:
            for c in m.cards:
                self.placed[physical(c)] += 1
        for s, cards in enumerate(obs.known):
            if s != obs.seat:
                for c in cards:
                    self.placed[c] += 1
        mine = card_counts(obs.hand)
        #: copies of each natural card the seat may still get (none of them in its sight)
        self.live = [max(self.copies - in_pile[c] - self.placed[c] - mine[c], 0) for c in range(52)]
        self._reading: Reading | None = None

    def gone(self, card: int) -> bool:
        """Whether every copy of ``card`` is on the table or known in another hand: it cannot
        come to the seat (a card in the discard pile still can, taken with those above it)."""
        return self.placed[card] >= self.copies

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
        for other in sorted(set(hand) - {card, JOKER}):
            outs = [c for c in range(52) if _is_meld((card, other, c))]
            if outs:
                found.append((other, outs))
        return found

    def in_meld(self, card: int) -> tuple[int, ...] | None:
        return next((m for m in self.reading().melds if card in m), None)

    def name(self, seat: int, names: Sequence[str] | None) -> str:
        return names[seat] if names is not None else seat_str(seat)

    # --- what a discard gives up, and why another costs nothing ------------------------------

    def discard_costs(self, card: int) -> list[Reason]:
        """Why ``card`` should be kept."""
        said: list[Reason] = []
        obs = self.obs
        if card == JOKER:
            return [Reason("joker", card=card, points=self.val[JOKER])]
        meld = self.in_meld(card)
        if meld is not None:
            said.append(Reason("in_meld", card=card, cards=meld))
        if card in self.table.fits:
            said.append(Reason("fits_table", card=card))
        for s, known in enumerate(obs.known):
            if s != obs.seat and known and can_meld_with(card, card_counts([*known, card])):
                said.append(Reason("gives_meld", card=card, seat=s, cards=tuple(known)))
        if meld is None:
            for other, outs in self.partners(card, obs.hand):
                live = tuple(c for c in outs if self.live[c])
                if live:
                    said.append(Reason("goes_with", card=card, other=other, cards=live))
                    break
        return said

    def discard_spares(self, card: int) -> list[Reason]:
        """Why ``card`` can go."""
        obs = self.obs
        said: list[Reason] = []
        if card != JOKER and self.in_meld(card) is None:
            partners = self.partners(card, obs.hand)
            if not partners and JOKER not in obs.hand:
                said.append(Reason("lone", card=card))
            elif partners:
                outs = tuple(sorted({c for _o, cs in partners for c in cs}))
                if all(self.gone(c) for c in outs):
                    said.append(Reason("outs_gone", card=card, cards=outs))
        if card != JOKER and self.val[card] >= 10:
            said.append(Reason("costly", card=card, points=self.val[card]))
        return said

    # --- takes, draws, melds ------------------------------------------------------------------

    def after_take(self, move: Move) -> tuple[list[int], Reading]:
        taken = list(self.obs.discard_pile[-move.number :])
        return taken, self.reading([*self.obs.hand, *taken])

    def take_gains(self, move: Move) -> list[Reason]:
        taken, r = self.after_take(move)
        deepest = taken[0]
        said = []
        meld = next((m for m in r.melds if deepest in m), None)
        if meld is not None:
            rest = Counter(meld)
            rest[deepest] -= 1
            held = Counter(self.obs.hand)
            from_hand = all(held[c] >= n for c, n in rest.items())
            code: ReasonCode = "take_meld" if from_hand else "take_meld_taken"
            said.append(Reason(code, card=deepest, cards=meld))
        elif deepest in r.layoffs and deepest in self.table.fits:
            said.append(Reason("take_layoff", card=deepest))
        return said

    def take_costs(self, move: Move) -> list[Reason]:
        taken, r = self.after_take(move)
        before = self.left(self.obs.hand)
        after = sum(self.val[c] for c in r.deadwood)
        said = []
        if after > before:
            said.append(Reason("take_more", k=len(taken), points=after - before))
        deepest = taken[0]
        if not can_meld_with(deepest, card_counts([*self.obs.hand, *taken])):
            said.append(Reason("take_no_meld", card=deepest))
        return said

    def play_gains(self, move: Move) -> list[Reason]:
        """A meld or lay-off: the points it puts out of reach."""
        points = play_points(move, self.obs.melds, self.values)
        return [Reason("scores", cards=move.cards, points=points)]

    def play_costs(self, move: Move) -> list[Reason]:
        """A meld or lay-off played too soon: where it lets the others lay off."""
        if move.verb != "meld":
            return []
        spots = table_fits([*self.obs.melds, _meld_view(move)]).fits - self.table.fits
        live = tuple(sorted(c for c in spots if self.live[c]))
        if not live:
            return []
        return [Reason("opens_spots", cards=move.cards, spots=live)]

    def plain(self, move: Move) -> list[Reason]:
        """What can be said for ``move`` when nothing sharper can (a hint's last resort)."""
        obs = self.obs
        verb = move.verb
        if verb == "draw":
            top = obs.discard_pile[-1] if obs.discard_pile else None
            if top is None:
                return []
            if can_meld_with(top, card_counts([*obs.hand, top])):
                return [Reason("stock_better", card=top)]
            return [Reason("take_no_meld", card=top)]
        if verb == "pass":
            return [Reason("claim_costs")]
        if verb == "end":
            return [Reason("pile_worthless")]
        if verb in ("take", "rummy"):
            return [Reason("take_better", card=obs.discard_pile[-move.number])]
        if verb == "discard":
            return [Reason("hand_together")]
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

    def breaks_up(self, move: Move, legal: Sequence[Move]) -> bool:
        if move.verb != "discard":
            return False
        card = move.cards[0]
        if card == JOKER or self.in_meld(card) is not None:
            return True
        if any(r.code == "goes_with" for r in self.discard_costs(card)):
            return True
        planned = {tuple(sorted(m)) for m in self.reading().melds}
        return any(
            m.verb == "meld" and tuple(sorted(physical(c) for c in m.cards)) in planned
            for m in legal
        )


def _is_meld(cards: tuple[int, ...]) -> bool:
    try:
        analyze_meld(cards)
    except IllegalMove:  # not a meld
        return False
    return True


def _meld_view(move: Move) -> MeldView:
    """A meld about to be made, as the table would show it (for where it could be laid off)."""
    is_run, _key, _lo, _hi, cards = analyze_meld(move.cards)
    return MeldView(0, is_run, cards, tuple(move.seat for _c in cards))


def _parts_with(move: Move) -> set[int]:
    """The cards of the hand ``move`` puts on the table or the pile."""
    if move.verb in ("meld", "layoff", "discard"):
        return {physical(c) for c in move.cards}
    return set()


def _gains(facts: _Facts, move: Move, other: Move | None) -> list[Reason]:
    verb = move.verb
    if verb in ("take", "rummy"):
        return facts.take_gains(move)
    if verb in ("meld", "layoff"):
        return facts.play_gains(move)
    if verb == "discard":
        card = move.cards[0]
        if other is not None and card in _parts_with(other):
            return []  # the other move parts with the card too: keeping it is not the point
        return facts.discard_spares(card)
    return []


def _costs(facts: _Facts, move: Move) -> list[Reason]:
    verb = move.verb
    if verb in ("take", "rummy"):
        return facts.take_costs(move)
    if verb in ("meld", "layoff"):
        return facts.play_costs(move)
    if verb == "discard":
        return facts.discard_costs(move.cards[0])
    return []


def breaks_up(obs: Observation, move: Move, legal: Sequence[Move]) -> bool:
    """Whether ``move`` gives up something the hand holds together: a discard of a joker, of a
    card of a meld of the hand's best reading, or of a card that goes with another whose third
    can still come; or a discard while one of the hand's melds could be put down now (``legal``:
    the legal moves). A hint that does so says why."""
    return _Facts(obs).breaks_up(move, legal)


def explain(
    obs: Observation,
    better: Move,
    played: Move | None = None,
    *,
    gain: float | None = None,
    evaluation: Evaluation | None = None,
) -> Explanation:
    """The reasons :func:`why` says, as data (see :class:`Reason`)."""
    facts = _Facts(obs)
    other = played if played is not None and played != better else None
    if other is not None:
        reasons = [*_costs(facts, other), *_gains(facts, better, other)]
        if evaluation is not None:
            reasons.extend(_sampled(evaluation, better, other))
    else:
        reasons = _gains(facts, better, None)
    if not reasons:
        left = facts.left_after(better)
        then = facts.left_after(other) if other is not None else None
        if left is not None and then is not None and left < then:
            reasons.append(Reason("leaves", points=left, than=then))
        elif better.verb == "draw" and other is not None and other.verb in ("take", "rummy"):
            reasons = facts.take_costs(other)
        elif other is None or gain is None:
            reasons = facts.plain(better)
    if not reasons and gain is not None and round(gain) >= 1:
        reasons.append(Reason("gain", points=round(gain)))
    return Explanation(better, other, tuple(reasons))


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
    return say(obs, explain(obs, better, played, gain=gain, evaluation=evaluation), names)


def say(obs: Observation, explanation: Explanation, names: Sequence[str] | None = None) -> str:
    """An :class:`Explanation` in a sentence, in the language in use."""
    head = move_label(explanation.move, obs)
    if explanation.instead is not None:
        head = _("{better} rather than {played}").format(
            better=head, played=_lower_first(move_label(explanation.instead, obs))
        )
    if not explanation.reasons:
        return head + "."
    said = "; ".join(_say(reason, names) for reason in explanation.reasons)
    return _("{move}: {reasons}.").format(move=head, reasons=said)


def _say(reason: Reason, names: Sequence[str] | None) -> str:
    code = reason.code
    card = card_name(reason.card) if reason.card >= 0 else ""
    if code == "joker":
        return _("a joker can stand for any card and is worth {points} points on the table").format(
            points=reason.points
        )
    if code == "in_meld":
        return _("{card} is part of {meld} in your hand").format(
            card=card, meld=cards_name(reason.cards)
        )
    if code == "fits_table":
        return _("{card} fits a meld on the table: whoever takes it scores it").format(card=card)
    if code == "gives_meld":
        name = names[reason.seat] if names is not None else seat_str(reason.seat)
        return _("{name} took {cards} from the pile: {card} gives them a meld").format(
            name=name, cards=cards_name(reason.cards), card=card
        )
    if code == "goes_with":
        return _("{card} goes with {other}, and {outs} can still come").format(
            card=card, other=card_name(reason.other), outs=cards_name(reason.cards)
        )
    if code == "lone":
        return _("{card} goes with none of your other cards").format(card=card)
    if code == "outs_gone":
        return ngettext(
            "the {cards} that would go with {card} is already on the table or in the others' hands",
            "the {cards} that would go with {card} are already on the table or in the others' "
            "hands",
            len(reason.cards),
        ).format(cards=cards_name(reason.cards), card=card)
    if code == "costly":
        return _("{card} would cost {points} points if it were caught in your hand").format(
            card=card, points=reason.points
        )
    if code == "take_meld":
        return _("the {card} makes {meld} with your cards").format(
            card=card, meld=cards_name(reason.cards)
        )
    if code == "take_meld_taken":
        return _("the {card} makes {meld} with the cards taken with it").format(
            card=card, meld=cards_name(reason.cards)
        )
    if code == "take_layoff":
        return _("the {card} can be laid off on the table").format(card=card)
    if code == "take_more":
        if reason.k == 1:
            text = ngettext(
                "the card you take adds {more} point of cards that make no meld to your hand",
                "the card you take adds {more} points of cards that make no meld to your hand",
                reason.points,
            )
        else:
            text = ngettext(
                "the {n} cards you take add {more} point of cards that make no meld to your hand",
                "the {n} cards you take add {more} points of cards that make no meld to your hand",
                reason.points,
            )
        return text.format(n=reason.k, more=reason.points)
    if code == "take_no_meld":
        return _("the {card} makes no meld with your cards").format(card=card)
    if code == "scores":
        if len(reason.cards) == 1:
            text = ngettext(
                "{cards} scores {points} point on the table now; in your hand it counts against "
                "you if the hand ends",
                "{cards} scores {points} points on the table now; in your hand it counts against "
                "you if the hand ends",
                reason.points,
            )
        else:  # a meld: three cards or more, three points or more
            text = _(
                "{cards} score {points} points on the table now; in your hand they count against "
                "you if the hand ends"
            )
        return text.format(cards=cards_name(reason.cards), points=reason.points)
    if code == "opens_spots":
        return _("melding {cards} now lets the others lay off {spots} on it").format(
            cards=cards_name(reason.cards), spots=cards_name(reason.spots)
        )
    if code == "leaves":
        return ngettext(
            "it leaves {points} point of cards that make no meld in your hand, instead of {other}",
            "it leaves {points} points of cards that make no meld in your hand, instead of {other}",
            reason.points,
        ).format(points=reason.points, other=reason.than)
    if code == "went_out":
        return _("you go out first in {a} of {n} sampled deals, against {b}").format(
            a=reason.k, n=reason.n, b=reason.than
        )
    if code == "picked_up":
        return _("another player picks up the {card} at once in {k} of {n} sampled deals").format(
            card=card, k=reason.k, n=reason.n
        )
    if code == "gain":
        return ngettext(
            "over the sampled deals it scores about {points} point more",
            "over the sampled deals it scores about {points} points more",
            reason.points,
        ).format(points=reason.points)
    if code == "stock_better":
        return _("the {card} is worth less to you than a card from the stock").format(card=card)
    if code == "claim_costs":
        return _("the cards you could claim are worth less than they cost")
    if code == "pile_worthless":
        return _("nothing in the discard pile is worth taking")
    if code == "take_better":
        return _("the {card} goes with your hand better than a card from the stock").format(
            card=card
        )
    return _("the rest of your hand is worth more together")


def _sampled(evaluation: Evaluation, better: Move, played: Move) -> list[Reason]:
    """What the evaluator's sampled deals showed about the two moves."""
    good, bad = evaluation.value(better), evaluation.value(played)
    if good is None or bad is None:
        return []
    n = evaluation.samples
    said = []
    if good.went_out - bad.went_out >= max(2, n // 5):
        said.append(Reason("went_out", k=good.went_out, n=n, than=bad.went_out))
    if (
        played.verb == "discard"
        and bad.picked_up >= max(2, n // 4)
        and (better.verb != "discard" or good.picked_up < bad.picked_up)
    ):
        said.append(Reason("picked_up", card=played.cards[0], k=bad.picked_up, n=n))
    return said


def _lower_first(text: str) -> str:
    """``text`` with its first word in lower case, when that word is a word ("Discard 9♣" →
    "discard 9♣"), not a card ("K♣ eldobása", "Joker eldobása", "Joker=3♥ 4♥ 5♥ kirakása"
    stay)."""
    first = text.split(" ", 1)[0]
    if not first.isalpha() or first == card_name(JOKER):
        return text
    return text[:1].lower() + text[1:]
