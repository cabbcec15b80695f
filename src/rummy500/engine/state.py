"""The game: deals, turns, the Rummy call window, end of hand, scoring, end of game.

:class:`Game` is the one core object. Whoever must act is :attr:`Game.to_act`;
:meth:`Game.legal_moves` lists what they may do; :meth:`Game.play` checks and applies a move, or
raises :class:`IllegalMove` and leaves the game exactly as it was. Its layers are in
:mod:`rummy500.engine.fields`, :mod:`~rummy500.engine.movegen`, :mod:`~rummy500.engine.explain`
and :mod:`~rummy500.engine.serialize`.
"""

from __future__ import annotations

from collections.abc import Sequence

from rummy500.engine.cards import (
    JOKER,
    JOKER_AS,
    NUM_CODES,
)
from rummy500.engine.deal import Deal, HandHistory, generator
from rummy500.engine.errors import InvalidMoveError, NotationError
from rummy500.engine.explain import loose_pattern, matches_loose
from rummy500.engine.fields import (
    CALL,
    DRAW,
    GAME_OVER,
    HAND_OVER,
    MUST_ANY,
    MUST_LAYOFF,
    PLAY,
)
from rummy500.engine.melds import (
    BIT_INDEX,
    CARD_VALUES,
    analyze_meld,
    meldable,
    melded_value,
    played_value,
)
from rummy500.engine.movegen import (
    CALL_ORDER,
    CARD_BIT,
    PASS_MOVES,
    PILE_MELD,
    extend_meld,
    held_cards,
    new_meld,
)
from rummy500.engine.moves import Move, Seat, seat_str
from rummy500.engine.phases import CallWindow, HandResult, Obligation, ObligationKind
from rummy500.engine.reasons import AmbiguousMoveError, IllegalMove
from rummy500.engine.rules import Rules
from rummy500.engine.serialize import Serialization

__all__ = [
    "CALL",
    "DRAW",
    "GAME_OVER",
    "HAND_OVER",
    "PLAY",
    "Deal",
    "Game",
    "HandResult",
]


class Game(Serialization):
    """A game of Rummy 500, from the first deal to the winner.

    >>> game = Game.new(players=2, seed=7)
    >>> game.to_act, game.phase
    (1, 'draw')
    >>> game.play("P2 draw")
    """

    __slots__ = ()

    @classmethod
    def new(
        cls,
        players: int = 2,
        rules: Rules | None = None,
        *,
        seed: int | None = None,
        max_moves_per_hand: int | None = None,
    ) -> Game:
        """A new game with its first hand dealt by the seeded shuffle (P1 deals)."""
        game = cls(players, rules, seed=seed, max_moves_per_hand=max_moves_per_hand)
        game.deal()
        return game

    def hand_seed(self, number: int) -> int:
        """The shuffle seed of hand ``number`` of this game."""
        return generator(f"rummy500:{self.seed}:{number}").getrandbits(63)

    def deal(
        self, deal: Deal | None = None, *, dealer: int | None = None, number: int | None = None
    ) -> None:
        """Start the next hand: with ``deal`` (checked against the deck) or the seeded shuffle.

        The deal passes to the left after each hand; ``dealer`` and ``number`` are only for
        records that start in the middle of a game.
        """
        if self.phase == GAME_OVER:
            raise IllegalMove("game_over")
        if self.phase != HAND_OVER:
            raise IllegalMove("hand_not_over")
        dealer = (self.dealer + 1) % self.players if dealer is None else dealer
        number = self.hand_number + 1 if number is None else number
        if deal is None:
            deal = Deal.shuffled(self.players, self.rules, self.hand_seed(number), dealer)
        else:
            deal.validate(self.players, self.rules)
        self.dealer = dealer
        self.hand_number = number
        n = self.players
        self._hands = [[0] * NUM_CODES for _ in range(n)]
        self._masks = [0] * n
        for seat, cards in enumerate(deal.hands):
            counts = self._hands[seat]
            mask = 0
            for c in cards:
                counts[c] = counts[c] + 1
                if c != JOKER:
                    mask |= 1 << c
            self._masks[seat] = mask
        self.hand_sizes = [len(h) for h in deal.hands]
        self._known = [[0] * NUM_CODES for _ in range(n)]
        self._known_view = None
        self._meld_view = None
        self.stock = list(reversed(deal.stock))  # top of the stock is the end of the list
        self.discard = [deal.discard]
        self._pile_sums = []
        self._pile_push(deal.discard)
        self.melds = []
        self.points = [0] * n
        self.turn = (dealer + 1) % n
        self._window = []
        self._must_use = -1
        self._must_mode = MUST_ANY
        self._no_discard = -1
        self._resume = -1
        self.phase = DRAW
        self._legal = None
        self._spot_index = None
        self.record.append(HandHistory(number, dealer, deal))
        self.moves = self.record[-1].moves  # this hand's moves: the same list as its record
        self._undo_floor = 0

    def play(self, move: Move | str) -> None:
        """Check and apply ``move`` (a :class:`Move` or its notation).

        Raises :class:`IllegalMove` with a reason a player understands; the game is then exactly
        as it was. In a call window a move of a later seat implies the passes before it, and the
        next player's draw closes the window (records may leave passes out).
        """
        legal = self._legal
        if legal is not None:  # the common case: a move just listed (the same object)
            for listed in legal:
                if listed is move:
                    self._apply(move)
                    return
            if move in legal:  # an equal move made anew
                self._apply(move)
                return
        if isinstance(move, str):
            move = Move.parse(move)
        if self.phase in (HAND_OVER, GAME_OVER):
            raise IllegalMove("game_over" if self.phase == GAME_OVER else "hand_over")
        if not 0 <= move.seat < self.players:
            raise IllegalMove("no_such_seat", seat=move.seat)
        if self.phase == CALL and (
            move.seat != self._window[0] or move.verb in ("draw", "take", "end")
        ):
            self._play_out_of_window_order(move)
            return
        if move in self.legal_moves():
            self._apply(move)
            return
        canon = self._canonical(move)
        if canon not in self.legal_moves():
            code, params = self._explain(canon)
            raise IllegalMove(code, **params)
        self._apply(canon)

    def _play_out_of_window_order(self, move: Move) -> None:
        saved = (self.phase, self._window, self._legal)
        if move.verb in ("draw", "take", "end") and move.seat == self.turn:
            self.phase, self._window = DRAW, []
        elif move.verb == "rummy" and move.seat in self._window:
            self._window = self._window[self._window.index(move.seat) :]
        elif move.verb == "rummy":
            raise IllegalMove("rummy_by_discarder")
        else:
            raise IllegalMove("window_open", seat=self._window[0])
        self._legal = None
        try:
            canon = self._canonical(move)
            if canon not in self.legal_moves():
                code, params = self._explain(canon)
                raise IllegalMove(code, **params)
        except IllegalMove:
            self.phase, self._window, self._legal = saved
            raise
        self._apply(canon)
        self._undo_floor = len(self.moves)  # a move made in a call window: not to take back

    def _apply(self, move: Move) -> None:
        self._legal = None
        self.moves.append(move)
        verb = move.verb
        seat = move.seat
        if verb == "discard":
            card = move.cards[0]
            hand = self._hands[seat]
            left = hand[card] - 1
            hand[card] = left
            if not left and card != JOKER:
                masks = self._masks
                masks[seat] = masks[seat] & ~(1 << card)
            known = self._known[seat]
            if known[card] > left:
                known[card] = left
                self._known_view = None
            size = self.hand_sizes[seat] - 1
            self.hand_sizes[seat] = size
            self.discard.append(card)
            self._no_discard = -1
            self._undo_floor = len(self.moves)  # (can_take_back: only takes, melds and lay-offs)
            if not size:
                self._pile_push(card)
                self._end_hand("out", seat)
                return
            n = self.players
            self.turn = (seat + 1) % n
            sums = self._pile_push(card)
            if (sums >= PILE_MELD and self._rummy == "pile") or self._window_opens(sums):
                self.phase = CALL
                self._window = CALL_ORDER[n][seat][:]
            else:
                self.phase = DRAW
        elif verb == "draw":
            card = self.stock.pop()
            hand = self._hands[seat]
            hand[card] = hand[card] + 1
            if card != JOKER:
                masks = self._masks
                masks[seat] = masks[seat] | 1 << card
            sizes = self.hand_sizes
            sizes[seat] = sizes[seat] + 1
            self.phase = PLAY
            self._no_discard = -1
            self._undo_floor = len(self.moves)
        elif verb == "take" and move.number == 1 and self._pickup == "top-free":
            # the usual take: the top card, free to use
            card = self.discard.pop()
            self._pile_sums.pop()
            hand, known = self._hands[seat], self._known[seat]
            hand[card] = hand[card] + 1
            known[card] = known[card] + 1
            self._known_view = None
            if card != JOKER:
                masks = self._masks
                masks[seat] = masks[seat] | 1 << card
            sizes = self.hand_sizes
            sizes[seat] = sizes[seat] + 1
            self._no_discard = card
            self._must_use = -1
            self._must_mode = MUST_ANY
            self.phase = PLAY
        elif verb == "take" or verb == "rummy":
            n = move.number
            taken = self.discard[-n:]
            del self.discard[-n:]
            del self._pile_sums[-n:]
            hand, known = self._hands[seat], self._known[seat]
            mask = self._masks[seat]
            for c in taken:
                hand[c] = hand[c] + 1
                known[c] = known[c] + 1
                if c != JOKER:
                    mask |= 1 << c
            self._masks[seat] = mask
            self._known_view = None
            sizes = self.hand_sizes
            sizes[seat] = sizes[seat] + n
            self._no_discard = taken[0] if n == 1 else -1
            if verb == "take":
                mode = self._take_mode(n)
                self._must_use = taken[0] if mode >= 0 else -1
                self._must_mode = max(mode, 0)
            else:
                self._window = []
                self._undo_floor = len(self.moves)
                self._must_use = taken[0]
                if self._rummy == "last-discard":
                    self._must_mode = MUST_LAYOFF
                    self._resume = self.turn
                else:
                    self._must_mode = MUST_ANY
                self.turn = seat
            self.phase = PLAY
        elif verb == "meld":
            is_run, key, lo, hi, cards = analyze_meld(move.cards)
            meld = new_meld(len(self.melds) + 1, is_run, key, lo, hi, cards, seat)
            self.melds.append(meld)
            self._meld_view = None
            self._meld_changed(meld, ())
            points = self.points
            points[seat] = points[seat] + melded_value(is_run, lo, cards, self.rules.values)
            self._remove(seat, cards)
            if self._resume >= 0 or not self.hand_sizes[seat]:
                self._after_table_play(seat)
        elif verb == "layoff":
            meld = self._meld(move.number)
            old = meld.spot_list
            pos = extend_meld(meld, move.cards[0], move.end, seat)
            self._meld_view = None
            if old is None:
                self._spot_index = None
            else:
                self._meld_changed(meld, old)
            points = self.points
            points[seat] = points[seat] + played_value(move.cards[0], pos, self.rules.values)
            self._remove(seat, move.cards)
            if self._resume >= 0 or not self.hand_sizes[seat]:
                self._after_table_play(seat)
        elif verb == "pass":
            self._undo_floor = len(self.moves)
            self._window = self._window[1:]
            if not self._window:
                self.phase = DRAW
        elif verb == "end":
            self._end_hand("stock", None)
            return
        if len(self.moves) >= self._cap and self.phase not in (HAND_OVER, GAME_OVER):
            self._end_hand("stock", None, capped=True)

    def _remove(self, seat: int, played: tuple[int, ...]) -> None:
        """Take the cards ``played`` (as played: jokers declared) out of the hand of ``seat``."""
        hand, known = self._hands[seat], self._known[seat]
        mask = self._masks[seat]
        must = self._must_use
        used = False
        for p in played:
            c = p if p < JOKER_AS else JOKER  # the card in the hand (a declared joker: JOKER)
            left = hand[c] - 1
            hand[c] = left
            if not left:
                mask &= ~CARD_BIT[c]  # the joker has no bit
            if known[c] > left:
                known[c] = left
                self._known_view = None
            if c == must:
                used = True
        self._masks[seat] = mask
        sizes = self.hand_sizes
        sizes[seat] = sizes[seat] - len(played)
        if used:
            self._must_use = -1
            self._must_mode = MUST_ANY

    def _after_table_play(self, seat: int) -> None:
        if self._resume >= 0 and self._must_use < 0:
            self.turn = self._resume
            self._resume = -1
            self.phase = DRAW
            self._no_discard = -1
            return
        if self.hand_sizes[seat] == 0:
            if self.rules.floating:
                self.turn = (seat + 1) % self.players
                self.phase = DRAW
                self._no_discard = -1
            else:
                self._end_hand("out", seat)

    def _end_hand(self, ended_by: str, out: int | None, capped: bool = False) -> None:
        table = CARD_VALUES[self.rules.values]
        hands, masks, points, totals = self._hands, self._masks, self.points, self.totals
        n = len(hands)
        left = tuple([_hand_value(table, hands[s], masks[s]) for s in range(n)])
        melded = tuple(points)
        # (lists by index: compiled, zip() and a generator are generic iterations, and
        # totals[s] += x a boxed in-place add)
        scores = tuple([points[s] - left[s] for s in range(n)])
        for s in range(n):
            totals[s] = totals[s] + scores[s]
        self.hand_results.append(HandResult(scores, ended_by, out, capped, melded, left))
        self._window = []
        self._must_use = -1
        self._resume = -1
        self.phase = HAND_OVER
        self._legal = None
        winner = self._winner(out)
        if winner is not None:
            self.winner = winner
            self.phase = GAME_OVER

    def _winner(self, out: int | None) -> int | None:
        target = self.rules.target
        if self.rules.win == "must-go-out":
            if out is not None and self.totals[out] >= target:
                return out
            return None
        best = max(self.totals)
        if best < target or self.totals.count(best) > 1:
            return None
        return self.totals.index(best)

    @property
    def move_stack(self) -> tuple[Move, ...]:
        """The moves of the current hand, oldest first (:meth:`undo` takes back the last)."""
        return tuple(self.moves)

    def peek(self) -> Move | None:
        """The last move of the current hand, or ``None`` right after the deal."""
        return self.moves[-1] if self.moves else None

    def can_take_back(self, seat: Seat | None = None) -> bool:
        """Whether the player at ``seat`` (default: the seat whose turn it is) may take back
        its last move: the takeback rule that the terminal and the browser game offer players.

        A player may take back, within their turn and until they discard, the moves that show
        nobody anything new: a take from the discard pile, melds and lay-offs. Never a draw from
        the stock (the card has been seen), a Rummy call or a pass, nor a move made while a call
        window was open. This is a rule for players, not a limit of :meth:`undo`, which takes
        back any move of the hand; front ends offer undo by it (:meth:`undo_refusal` says why
        not).
        """
        if self.phase != PLAY:
            return False
        if seat is None:
            seat = self.turn
        moves = self.moves
        return seat == self.turn and len(moves) > self._undo_floor and moves[-1].seat == seat

    def undo_refusal(self, seat: int | None = None) -> IllegalMove | None:
        """Why ``seat`` (default: the seat to act) may not take back its last move now (the
        rule of :meth:`can_take_back`), as the :class:`IllegalMove` that says it (not raised), or
        ``None`` if it may.

        Its ``code`` is ``hand_over`` or ``game_over``; ``not_your_turn`` (another seat's turn);
        ``draw_seen`` (the card drawn from the stock has been seen); ``rummy_final`` (a Rummy
        call); ``window_final`` (a move made while a call window was open); or
        ``nothing_this_turn`` (nothing of the seat's turn yet, or the turn is over).
        """
        if self.can_take_back(seat):
            return None
        phase = self.phase
        if phase in (HAND_OVER, GAME_OVER):
            return IllegalMove("game_over" if phase == GAME_OVER else "hand_over")
        if seat is None:
            seat = self.to_act
            assert seat is not None
        if phase != CALL and seat != self.turn:
            return IllegalMove("not_your_turn", seat=self.turn, other=seat)
        last = self.moves[-1] if phase == PLAY and self.moves else None
        if last is not None and last.seat == seat:
            if last.verb == "draw":
                return IllegalMove("draw_seen")
            if last.verb == "rummy":
                return IllegalMove("rummy_final")
            if last.verb == "take":  # (takes are otherwise taken back)
                return IllegalMove("window_final")
        return IllegalMove("nothing_this_turn")

    def undo(self) -> Move:
        """Take back the last move of the current hand, whatever it was, and return it: the
        library's undo, like python-chess's ``pop()``, for analysis and search. The game is then
        exactly as it was before that move (``to_json()`` equal).

        Any move of the hand is taken back, a draw from the stock, a Rummy call or a discard
        included, by any seat; :meth:`can_take_back` is the narrower rule for what a player may
        take back in a game. Raises :class:`IllegalMove` when the hand has no move yet.

        The hand is replayed from its deal, so this costs about as much as the moves of the
        hand; searches should :meth:`~rummy500.engine.Game.clone` instead.
        """
        if not self.record or not self.moves or self.record[-1].deal is None:
            raise IllegalMove("nothing_to_undo")
        hand = self.record.pop()
        moves = hand.moves[:-1]
        last = hand.moves[-1]
        if self.phase in (HAND_OVER, GAME_OVER):  # the move ended the hand: unscore it
            result = self.hand_results.pop()
            for s, score in enumerate(result.scores):
                self.totals[s] -= score
            self.winner = None
        self.phase = HAND_OVER
        self.deal(hand.deal, dealer=hand.dealer, number=hand.number)
        for move in moves:
            self.play(move)
        return last

    def parse_move(self, text: str) -> Move:
        """The legal move that ``text`` means in this position.

        ``text`` is a move in notation (``"P2 meld 4H 5H 6H"``); the seat may be left out for
        the seat to act (``"discard 9C"``); a joker may be left undeclared (``"meld 9H JK JK"``),
        a lay-off's end unsaid, and its meld too (``"layoff 6D"``: the melds it fits), when only
        one reading is legal. Raises :class:`InvalidMoveError` (not a move),
        :class:`AmbiguousMoveError` (several legal readings, listed in ``readings``) or
        :class:`IllegalMove` (with the reason: for a loose move, why no reading is legal —
        what is wrong with a meld whatever its jokers stand for, a lay-off that fits no meld);
        the game never changes.
        """
        words = text.split()
        if words and not (words[0][:1] in "Pp" and words[0][1:].isdigit()):
            actor = self.to_act
            if actor is not None:
                words.insert(0, seat_str(actor))
        written = " ".join(words)
        loose = loose_pattern(words)
        try:
            move = Move.parse(written)
        except NotationError as error:
            if loose is None:
                raise InvalidMoveError(str(error)) from None
            move = None
        if move is not None and loose is None:
            return self.legal_form(move)
        assert loose is not None
        readings = [m for m in self._moves_of(loose[0]) if matches_loose(m, loose)]
        if len(readings) == 1:
            return readings[0]
        if len(readings) > 1:
            raise AmbiguousMoveError(written, readings)
        if move is not None:
            try:
                return self.legal_form(move)  # (a joker declared as a card, in a group)
            except IllegalMove as error:
                if not error.code.startswith("joker_"):
                    raise
        code, params = self._why_no_reading(loose)
        raise IllegalMove(code, **params)

    def legal_form(self, move: Move | str) -> Move:
        """``move`` as :meth:`~rummy500.engine.Game.legal_moves` lists it (meld cards in order,
        a lay-off's end only where it matters), if it is legal now; else :class:`IllegalMove`
        with the reason. In a call window, the move of a later seat or the next player's draw
        is legal (it implies the passes before it). Nothing changes."""
        if isinstance(move, str):
            move = Move.parse(move)
        if self.phase in (HAND_OVER, GAME_OVER):
            raise IllegalMove("game_over" if self.phase == GAME_OVER else "hand_over")
        if not 0 <= move.seat < self.players:
            raise IllegalMove("no_such_seat", seat=move.seat)
        legal = self.legal_moves()
        if move in legal:
            return move
        probe = self.clone() if self.phase == CALL else self
        if probe is not self:
            probe._legal = None
            probe.play(move)  # raises, or the move is legal once the implied passes are made
            return probe.moves[-1]
        canon = self._canonical(move)
        if canon not in legal:
            code, params = self._explain(canon)
            raise IllegalMove(code, **params)
        return canon

    def _moves_of(self, seat: int) -> Sequence[Move]:
        """The legal moves ``seat`` would have if it were asked now (in a call window: the
        calls it could make; the next player: the draws that close the window)."""
        if self.phase == CALL and seat != self._window[0]:
            if seat in self._window:
                return (PASS_MOVES[seat], *self._rummy_moves(seat))
            if seat == self.turn:
                probe = self.clone()
                probe.phase, probe._window, probe._legal = DRAW, [], None
                return probe.legal_moves()
            return ()
        return self.legal_moves() if seat == self.to_act else ()

    @property
    def call_window(self) -> CallWindow | None:
        """The open Rummy call window (who may still call, nearest first, and which depths of
        the discard pile could be claimed), or ``None``."""
        if self.phase != CALL:
            return None
        return CallWindow(
            (self.turn - 1) % self.players,
            tuple(self._window),
            tuple(self._claimable_depths()),
        )

    def callable_depths(self, seat: int) -> tuple[int, ...]:
        """The depths of the discard pile ``seat`` could claim with "Rummy!" now (empty
        outside a call window or for a seat that cannot call)."""
        if self.phase != CALL or seat not in self._window:
            return ()
        return tuple(m.number for m in self._rummy_moves(seat))

    def asked(self, seat: int) -> Game:
        """A copy of the game in which the open call window has come to ``seat`` (the nearer
        seats passed): the position a player deciding their call at the same time as the others
        decides in. ``seat`` must be in :attr:`~rummy500.engine.Game.window`."""
        if self.phase != CALL or seat not in self._window:
            raise IllegalMove("not_allowed")
        probe = self.clone()
        while probe._window[0] != seat:
            probe.play(PASS_MOVES[probe._window[0]])
        return probe

    @property
    def obligation(self) -> Obligation | None:
        """The card the player to act must meld or lay off before anything else, or ``None``."""
        if self.phase != PLAY or self._must_use < 0:
            return None
        kind = (ObligationKind.MELD, ObligationKind.NEW_MELD, ObligationKind.LAYOFF)
        return Obligation(self._must_use, kind[self._must_mode])

    def can_lay_off(self, card: int) -> bool:
        """Whether ``card`` (a natural, or the joker) fits a meld on the table now."""
        return card in self._spots()

    def known_cards(self, seat: int) -> tuple[int, ...]:
        """The cards everybody knows ``seat`` holds (taken from the discard pile, not played
        since), sorted."""
        if not self._known:
            return ()
        return self._known_cards()[seat]

    def playable_cards(self, seat: int) -> frozenset[int]:
        """The cards of ``seat``'s hand that could go into a new meld with others of the hand,
        or be laid off on the table now (what a front end marks in the hand)."""
        if not self._hands:
            return frozenset()
        counts = self._hands[seat]
        present = self._masks[seat]
        jokers = counts[JOKER]
        spots = self._spots()
        return frozenset(
            c for c in held_cards(counts, present) if c in spots or meldable(c, present, jokers)
        )

    def __repr__(self) -> str:
        hand = f"hand {self.hand_number}" if self.hand_number else "not dealt"
        actor = self.to_act
        who = f", {seat_str(actor)} to act" if actor is not None else ""
        if self.winner is not None:
            who = f", won by {seat_str(self.winner)}"
        return f"<Game {self.players} players, {hand}, {self.phase}{who}, totals {self.totals}>"

    def __str__(self) -> str:
        return self.render()

    def _repr_svg_(self) -> str | None:
        """The table in a notebook, as the seat to act sees it (P1 between hands)."""
        if not self.hand_number:
            return None  # not dealt yet: no table to draw
        from rummy500.engine import svg

        return svg.table(self.observation(self.to_act if self.to_act is not None else 0))

    def render(self, seat: int | None = None) -> str:
        """A compact text picture of the table: totals, stock, discard pile, melds with who
        played each card, hand sizes — and ``seat``'s hand, when given. Without ``seat`` every
        hand is shown (the whole truth, for debugging and teaching)."""
        from rummy500.engine.reasons import card_label, cards_label

        lines = [repr(self)[1:-1]]
        if not self._hands:
            return lines[0]
        lines.append(
            f"stock {len(self.stock)} · discard pile (top last): "
            + (" ".join(card_label(c) for c in self.discard) or "-")
        )
        for m in self.melds:
            owners = " ".join(seat_str(o) for o in m.owners)
            lines.append(f"meld {m.number}: {cards_label(m.cards)}   ({owners})")
        for s in range(self.players):
            mark = ">" if s == self.to_act else " "
            shown = s == seat or seat is None
            cards = " ".join(card_label(c) for c in self.hand(s)) if shown else ""
            lines.append(
                f"{mark}{seat_str(s)}: total {self.totals[s]:>5} · this hand {self.points[s]:>4}"
                f" · {self.hand_sizes[s]:>2} cards {cards}".rstrip()
            )
        return "\n".join(lines)


def _hand_value(table: list[int], counts: list[int], mask: int) -> int:
    """The points of the cards ``counts`` holds (``mask``: the natural cards present, as bits),
    by the card values ``table``: the cards held only, not all 53 codes."""
    total = counts[JOKER] * table[JOKER]
    while mask:
        low = mask & -mask
        mask ^= low
        c = BIT_INDEX[low % 67]
        total += counts[c] * table[c]
    return total
