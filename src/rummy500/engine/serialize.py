"""Copies, files and observations: :meth:`~Serialization.clone`, ``to_json``/``from_json``,
what one seat may know (``observation``) and a full game consistent with it
(``from_observation``), all put together by one constructor (``_assemble``)."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any, Self

from rummy500.engine.cards import (
    NUM_CODES,
    card_str,
    parse_card,
    parse_played,
    played_str,
)
from rummy500.engine.deal import Deal, HandHistory
from rummy500.engine.explain import Explanations
from rummy500.engine.fields import held_cards
from rummy500.engine.melds import (
    TableMeld,
    presence_mask,
)
from rummy500.engine.movegen import meld_from_cards
from rummy500.engine.moves import Move
from rummy500.engine.observation import Observation, unseen_cards
from rummy500.engine.phases import HandResult, Phase
from rummy500.engine.rules import Rules
from rummy500.i18n import _


class Serialization(Explanations):
    """Copies, JSON and observations of a game."""

    __slots__ = ()

    def clone(self) -> Self:
        """A deep copy that shares nothing mutable with this game."""
        g = type(self).__new__(type(self))
        g.rules = self.rules
        g._pickup = self._pickup
        g._going_out = self._going_out
        g._rummy = self._rummy
        g.players = self.players
        g.seed = self.seed
        g._cap = self._cap
        g.totals = self.totals[:]
        g.hand_number = self.hand_number
        g.dealer = self.dealer
        g.hand_results = self.hand_results[:]
        g.record = [HandHistory(h.number, h.dealer, h.deal, h.moves[:]) for h in self.record]
        g.winner = self.winner
        g.phase = self.phase
        g._hands = [h[:] for h in self._hands]
        g.hand_sizes = self.hand_sizes[:]
        g._masks = self._masks[:]
        g._known = [k[:] for k in self._known]
        g._known_view = self._known_view
        g._meld_view = self._meld_view
        g.stock = self.stock[:]
        g.discard = self.discard[:]
        g.melds = [m.copy() for m in self.melds]
        g.points = self.points[:]
        g.moves = g.record[-1].moves if g.record else self.moves[:]
        g.turn = self.turn
        g._window = self._window[:]
        g._must_use = self._must_use
        g._must_mode = self._must_mode
        g._no_discard = self._no_discard
        g._resume = self._resume
        g._legal = self._legal
        g._undo_floor = self._undo_floor
        g._spot_index = None
        g._pile_sums = self._pile_sums[:]
        return g

    def to_json(self) -> dict[str, Any]:
        """Everything about the game as JSON-serializable data (:meth:`from_json` reads it)."""

        def cards(cs: Iterable[int]) -> list[str]:
            return [card_str(c) for c in cs]

        return {
            "players": self.players,
            "rules": str(self.rules),
            "seed": self.seed,
            "max_moves_per_hand": self.max_moves_per_hand,
            "totals": self.totals[:],
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "winner": self.winner,
            "phase": self.phase,
            "hand_results": [
                {
                    "scores": list(r.scores),
                    "ended_by": r.ended_by,
                    "out": r.out,
                    "capped": r.capped,
                    "melded": list(r.melded),
                    "left": list(r.left),
                }
                for r in self.hand_results
            ],
            "record": [
                {
                    "number": h.number,
                    "dealer": h.dealer,
                    "deal": None
                    if h.deal is None
                    else {
                        "hands": [cards(x) for x in h.deal.hands],
                        "discard": card_str(h.deal.discard),
                        "stock": cards(h.deal.stock),
                    },
                    "moves": [str(m) for m in h.moves],
                }
                for h in self.record
            ],
            "hands": [cards(self.hand(s)) for s in range(self.players)] if self._hands else [],
            "known": [cards(c for c, k in enumerate(kn) for _ in range(k)) for kn in self._known],
            "stock": cards(reversed(self.stock)),
            "discard": cards(self.discard),
            "melds": [
                {
                    "number": m.number,
                    "cards": [played_str(c) for c in m.cards],
                    "owners": m.owners[:],
                }
                for m in self.melds
            ],
            "points": self.points[:],
            "moves": [str(m) for m in self.moves],
            "turn": self.turn,
            "window": self._window[:],
            "must_use": None if self._must_use < 0 else card_str(self._must_use),
            "must_mode": self._must_mode,
            "no_discard": None if self._no_discard < 0 else card_str(self._no_discard),
            "resume": self._resume,
            "undo_from": self._undo_floor,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        """Rebuild a game written by :meth:`to_json`."""

        def counts(cards: Iterable[str]) -> list[int]:
            out = [0] * NUM_CODES
            for c in cards:
                out[parse_card(c)] += 1
            return out

        record = [
            HandHistory(
                h["number"],
                h["dealer"],
                None
                if h["deal"] is None
                else Deal(
                    tuple(tuple(parse_card(c) for c in x) for x in h["deal"]["hands"]),
                    parse_card(h["deal"]["discard"]),
                    tuple(parse_card(c) for c in h["deal"]["stock"]),
                ),
                [Move.parse(m) for m in h["moves"]],
            )
            for h in data["record"]
        ]
        moves = record[-1].moves if record else [Move.parse(m) for m in data["moves"]]
        return cls._assemble(
            data["players"],
            Rules.parse(data["rules"]),
            seed=data["seed"],
            max_moves_per_hand=data["max_moves_per_hand"],
            totals=data["totals"],
            hand_number=data["hand_number"],
            dealer=data["dealer"],
            winner=data["winner"],
            phase=Phase(data["phase"]),
            hand_results=[
                HandResult(
                    tuple(r["scores"]),
                    r["ended_by"],
                    r["out"],
                    r["capped"],
                    tuple(r["melded"]),
                    tuple(r["left"]),
                )
                for r in data["hand_results"]
            ],
            record=record,
            moves=moves,
            hands=[counts(cards) for cards in data["hands"]],
            known=[counts(cards) for cards in data["known"]],
            stock=[parse_card(c) for c in reversed(data["stock"])],
            discard=[parse_card(c) for c in data["discard"]],
            melds=[
                meld_from_cards(m["number"], [parse_played(c) for c in m["cards"]], m["owners"])
                for m in data["melds"]
            ],
            points=data["points"],
            turn=data["turn"],
            window=data["window"],
            must_use=-1 if data["must_use"] is None else parse_card(data["must_use"]),
            must_mode=data["must_mode"],
            no_discard=-1 if data["no_discard"] is None else parse_card(data["no_discard"]),
            resume=data["resume"],
            undo_from=data.get("undo_from", len(moves)),
        )

    @classmethod
    def from_observation(
        cls, obs: Observation, rng: random.Random, deal: Sequence[int] | None = None
    ) -> Self:
        """A full game consistent with ``obs``: the cards ``obs.seat`` cannot place are dealt
        at random to the other hands (beside the cards known to be there) and the stock. The
        seat cannot tell it from the real game (``observation(obs.seat) == obs``). For
        determinized search.

        ``deal`` chooses the deal instead of chance: the unseen cards
        (:func:`~rummy500.engine.unseen_cards`, each once) in the order they are dealt — the
        other hands' unknown cards first, seat by seat, then the stock, top card last. A search
        that weighs what the others are likely to hold samples this order itself. Raises
        :class:`ValueError` if ``deal`` is not an arrangement of the unseen cards."""
        unseen = unseen_cards(obs)
        seed = rng.getrandbits(63)
        if deal is None:
            rng.shuffle(unseen)
        elif sorted(deal) != unseen:  # unseen_cards is in card order
            raise ValueError(_("the deal must hold each unseen card once, and nothing else"))
        else:
            unseen = list(deal)
        hands: list[list[int]] = []
        for s in range(obs.players):
            if s == obs.seat:
                cards = list(obs.hand)
            else:
                cards = list(obs.known[s])
                need = obs.hand_sizes[s] - len(cards)
                cards += unseen[:need]
                del unseen[:need]
            held = [0] * NUM_CODES
            for c in cards:
                held[c] += 1
            hands.append(held)
        known = []
        for seen in obs.known:
            kn = [0] * NUM_CODES
            for c in seen:
                kn[c] += 1
            known.append(kn)
        record = [HandHistory(obs.hand_number, obs.dealer, None, list(obs.history))]
        game = cls._assemble(
            obs.players,
            obs.rules,
            seed=seed,
            max_moves_per_hand=None,
            totals=obs.totals,
            hand_number=obs.hand_number,
            dealer=obs.dealer,
            winner=obs.winner,
            phase=obs.phase,
            hand_results=list(obs.hand_results),
            record=record,
            moves=record[0].moves,
            hands=hands,
            known=known,
            stock=unseen,  # what is left, in random order
            discard=list(obs.discard_pile),
            melds=[meld_from_cards(m.number, list(m.cards), list(m.played_by)) for m in obs.melds],
            points=obs.points,
            turn=obs.turn,
            window=obs.window,
            must_use=obs.must_use,
            must_mode=obs.must_mode,
            no_discard=obs.no_discard,
            resume=obs.resume,
            undo_from=len(obs.history),
        )
        # the observation's melds are what this game's observations show: share them (the bots
        # look them up in caches, where the same objects are found at once)
        views = obs.melds
        if type(views) is tuple and all(
            v.is_run == m.is_run and type(v.cards) is tuple and type(v.played_by) is tuple
            for m, v in zip(game.melds, views, strict=True)
        ):
            for m, v in zip(game.melds, views, strict=True):
                m.view = v
            game._meld_view = views
        return game

    @classmethod
    def _assemble(
        cls,
        players: int,
        rules: Rules,
        *,
        seed: int,
        max_moves_per_hand: int | None,
        totals: Sequence[int],
        hand_number: int,
        dealer: int,
        winner: int | None,
        phase: Phase,
        hand_results: list[HandResult],
        record: list[HandHistory],
        moves: list[Move],
        hands: list[list[int]],
        known: list[list[int]],
        stock: list[int],
        discard: list[int],
        melds: list[TableMeld],
        points: Sequence[int],
        turn: int,
        window: Sequence[int],
        must_use: int,
        must_mode: int,
        no_discard: int,
        resume: int,
        undo_from: int,
    ) -> Self:
        """The one way a game is put together from its parts (:meth:`from_json`,
        :meth:`from_observation`): hands and known cards as per-card counts, the stock top
        last."""
        g = cls(players, rules, seed=seed, max_moves_per_hand=max_moves_per_hand, totals=totals)
        g.hand_number = hand_number
        g.dealer = dealer
        g.winner = winner
        g.phase = phase
        g.hand_results = hand_results
        g.record = record
        g.moves = moves
        g._hands = hands
        g.hand_sizes = [sum(h) for h in hands]
        g._masks = [presence_mask(h) for h in hands]
        g._known = known
        g.stock = stock
        g.discard = discard
        g.melds = melds
        g.points = list(points)
        g.turn = turn
        g._window = list(window)
        g._must_use = must_use
        g._must_mode = must_mode
        g._no_discard = no_discard
        g._resume = resume
        g._undo_floor = undo_from
        g._reset_caches()
        return g

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Serialization):
            return NotImplemented
        return self.to_json() == other.to_json()

    def observation(self, seat: int) -> Observation:
        """What ``seat`` may know now (see :mod:`rummy500.engine.observation`)."""
        # (positional, in the order of the fields: a third faster than keywords, and an
        # observation is made for every move of every playout)
        return Observation(
            seat,  # seat
            self.players,  # players
            self.rules,  # rules
            self.hand_number,  # hand_number
            self.dealer,  # dealer
            self.phase,  # phase
            self.to_act,  # to_act
            self.turn,  # turn
            held_cards(self._hands[seat], self._masks[seat]),  # hand
            tuple(self.discard),  # discard_pile
            len(self.stock),  # stock_size
            self._meld_views(),  # melds
            tuple(self.hand_sizes),  # hand_sizes
            self._known_cards(),  # known
            tuple(self.totals),  # totals
            tuple(self.points),  # points
            tuple(self.moves),  # history
            self._must_use,  # must_use
            self._must_mode,  # must_mode
            self._no_discard,  # no_discard
            self._resume,  # resume
            tuple(self._window),  # window
            tuple(self.hand_results),  # hand_results
            self.winner,  # winner
        )
