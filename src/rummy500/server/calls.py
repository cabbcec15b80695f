"""The Rummy call window at a table: who is asked, what they answered, and until when.

The engine says who may call and for which depths (:meth:`Game.callable_depths`) and in which
order answers count (:attr:`Game.window`, nearest seat first). What the table adds is time:
every seat that may call is asked at once, with one deadline, and answers are kept until the
engine's order reaches them, so the nearest caller wins whoever answered first. The next
player's draw, sent while the window is open, waits here until the window closes: then it is
played, or, when a call was made, returned as the news that it was cancelled
(:class:`~rummy500.server.outgoing.DrawCancelled`, for the table to publish).

A person who let a call go is not asked again for the same cards: the table remembers, for the
hand, which cards of the pile (by their place from the bottom, and the card) each seat let go,
and a later window asks that seat only when something it could claim is new to it (a discard
that fits a meld, a meld laid down that a pile card now fits). Until then the seat passes by
itself, as a seat that cannot call does, and sees no window. The rule does not change
(docs/rules.md, section 5): the seat could still call, it is only not asked.
"""

from __future__ import annotations

from typing import Any

from rummy500.engine import DRAW, Game, IllegalMove, Move, RefusedMove
from rummy500.i18n import _
from rummy500.server.outgoing import DrawCancelled

__all__ = ["CallAnswers"]


class CallAnswers:
    """The open call window's bookkeeping (one per table; empty while no window is open)."""

    def __init__(self) -> None:
        #: the version that opened the window (``None``: no window is open)
        self.window_id: int | None = None
        self.deadline = 0.0
        #: the seats that may call, each with the moves it may make (a pass first), a tuple
        #: handed as is to the seat's computer player and to the views
        self.callers: dict[int, tuple[Move, ...]] = {}
        #: the answers given and not applied yet, and who gave each (``player``, ``bot``…)
        #: with the ref of its message
        self.answers: dict[int, Move] = {}
        self.refs: dict[int, tuple[str, Any]] = {}
        #: the next player's draw sent during the window: (move, ref)
        self.queued_draw: tuple[Move, Any] | None = None
        #: what each caller of the open window could claim: the pile's cards at the callable
        #: depths, as (place from the bottom, card)
        self.claims: dict[int, frozenset[tuple[int, int]]] = {}
        #: the claims each seat let go this hand (``hand``: the hand they belong to)
        self.let_go: dict[int, frozenset[tuple[int, int]]] = {}
        self.hand = 0

    @property
    def is_open(self) -> bool:
        return self.window_id is not None

    def open(self, game: Game, window_id: int, deadline: float) -> None:
        """A discard has opened a call window: who may call, with which moves, until when."""
        self.window_id = window_id
        self.deadline = deadline
        self.answers.clear()
        self.refs.clear()
        self.callers = {}
        self.claims = {}
        if game.hand_number != self.hand:
            self.hand = game.hand_number
            self.let_go = {}
        for seat in game.window:
            asked = self._asked_for(game, seat)
            if asked is not None:
                depths, claim = asked
                calls = (Move(seat, "rummy", number=d) for d in depths)
                self.callers[seat] = (Move(seat, "pass"), *calls)
                self.claims[seat] = claim

    def asks(self, game: Game, seat: int) -> bool:
        """Whether a window opened now (:meth:`open`) would ask ``seat``: else it passes by
        itself."""
        return self._asked_for(game, seat) is not None

    def _asked_for(
        self, game: Game, seat: int
    ) -> tuple[tuple[int, ...], frozenset[tuple[int, int]]] | None:
        """The depths ``seat`` may call for and what it could claim, if a window opened now
        asks it: it may call, and not only for cards it let go this hand."""
        depths = game.callable_depths(seat)
        if not depths:
            return None
        pile = game.discard
        claim = frozenset((len(pile) - d, pile[-d]) for d in depths)
        let_go = frozenset[tuple[int, int]]()
        if game.hand_number == self.hand:
            let_go = self.let_go.get(seat, let_go)
        return None if claim <= let_go else (depths, claim)

    def remember_pass(self, seat: int) -> None:
        """``seat``'s person let the call go: the cards it could claim are not offered to it
        again this hand."""
        claim = self.claims.get(seat)
        if claim:
            self.let_go[seat] = self.let_go.get(seat, frozenset()) | claim

    def close(self) -> None:
        """The window is over (a queued draw stays: it is played or refused next)."""
        self.window_id = None
        self.callers = {}
        self.claims = {}
        self.answers.clear()
        self.refs.clear()

    def extend(self, deadline: float) -> None:
        """Give the callers until ``deadline`` at least (the table waited for its people)."""
        self.deadline = max(self.deadline, deadline)

    def waiting(self, game: Game, seat: int) -> bool:
        """Whether ``seat`` is asked and has not answered yet."""
        return seat in self.callers and seat not in self.answers and seat in game.window

    def asked(self, game: Game) -> dict[int, tuple[Move, ...]]:
        """The seats still to answer, with the moves each may make."""
        return {s: moves for s, moves in self.callers.items() if self.waiting(game, s)}

    def answer(self, seat: int, move: Move, by: str, ref: Any = None) -> None:
        self.answers[seat] = move
        self.refs[seat] = (by, ref)
        if move.verb == "pass" and by == "player":
            self.remember_pass(seat)

    def take(self, seat: int) -> tuple[Move, str, Any] | None:
        """The answer of ``seat`` (to be applied now), or ``None`` if it has not answered."""
        if seat not in self.answers:
            return None
        move = self.answers.pop(seat)
        by, ref = self.refs.pop(seat, ("player", None))
        return move, by, ref

    def take_draw(self, game: Game) -> tuple[Move, Any] | DrawCancelled | None:
        """The queued draw, if any (it is forgotten here): (move, ref) to play now, or the news
        that it is cancelled (the window closed with a call: the turn is not the drawer's)."""
        draw, self.queued_draw = self.queued_draw, None
        if draw is None:
            return None
        move, ref = draw
        if game.phase == DRAW and move.seat == game.turn:
            return draw
        return DrawCancelled(move.seat, move.verb, ref)

    def receive(self, game: Game, seat: int, move: Move, ref: Any) -> Move:
        """A player's move sent while the window is open: a call or a pass, or the next
        player's draw (queued). Returns the move as kept; raises :class:`IllegalMove` with the
        engine's reason if it is none of these, :class:`RefusedMove` for the table's own rules (a
        second answer; a call for cards the seat let go this hand, which it is not asked for)."""
        if move.verb in ("pass", "rummy") and seat in game.window:
            if seat in self.answers:
                raise RefusedMove(
                    "already_answered", _("you have already answered this Rummy call")
                )
            options = self.callers.get(seat, ())
            if move.verb == "rummy" and move not in options:
                move = game.legal_form(move)  # raises with the engine's reason
                if move not in options:  # the game allows it: the table did not ask
                    raise RefusedMove(
                        "not_asked",
                        _(
                            "you let these cards go earlier this hand: the table does not ask "
                            "you for them again"
                        ),
                    )
            self.answer(seat, move, "player", ref)
        elif move.verb in ("draw", "take", "end") and seat == game.turn:
            move = game.legal_form(move)  # the draw that closes the window, as the engine lists it
            self.queued_draw = (move, ref)
            if seat in game.window and seat not in self.answers:
                self.answers[seat] = Move(seat, "pass")  # drawing lets the call go by
                self.remember_pass(seat)
        else:
            game.legal_form(move)  # raises with the engine's reason
            raise IllegalMove("not_allowed")
        return move
