"""Move generation: every legal move of the seat to act, from per-seat tables of ready-made
moves, the lay-off index of the table and the discard pile's running sums (kept up to date move
by move). :class:`MoveGeneration` is the layer of :class:`~rummy500.engine.Game` that lists
moves; it changes nothing but its caches."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Final

from rummy500.engine.cards import (
    JOKER,
    JOKER_AS,
    JOKER_RANK,
    NUM_CODES,
)
from rummy500.engine.fields import (
    CALL,
    DRAW,
    MUST_ANY,
    MUST_LAYOFF,
    MUST_NEW,
    PLAY,
    GameFields,
)
from rummy500.engine.melds import (
    BIT_INDEX,
    GROUP_TABLE,
    IN_RUN,
    MAX_JOKERS,
    SAME_RANK,
    SPOT_ENDS,
    TableMeld,
    analyze_meld,
    group_key,
    group_ranks,
    layoff_index,
    meld_spots,
    meldable,
    melds_from_mask,
    run_row,
)
from rummy500.engine.moves import Move

# Moves without cards are made once: legal_moves() hands out the same objects every time.
_DRAW: Final = [Move(s, "draw") for s in range(8)]
_END: Final = [Move(s, "end") for s in range(8)]
PASS_MOVES: Final = [Move(s, "pass") for s in range(8)]
_TAKE: Final = [[Move(s, "take", number=n) for n in range(109)] for s in range(8)]
_RUMMY: Final = [[Move(s, "rummy", number=n) for n in range(109)] for s in range(8)]
_DISCARD: Final = [[Move(s, "discard", (c,)) for c in range(NUM_CODES)] for s in range(8)]
# Per seat: lay-off moves by the table's lay-off entry (melds.spot_entry), meld moves by their
# cards.
_LAYOFF_MOVES: Final[list[dict[int, Move]]] = [{} for _ in range(8)]
_MELD_MOVES: Final[list[dict[tuple[int, ...], Move]]] = [{} for _ in range(8)]


def _layoff_move(seat: int, entry: int) -> Move:
    """The move of ``seat`` laying off as the lay-off ``entry`` of the table says."""
    moves = _LAYOFF_MOVES[seat]
    move = moves.get(entry)
    if move is None:
        if len(moves) > 1 << 16:
            moves.clear()
        move = moves[entry] = Move(
            seat, "layoff", (entry & 255,), entry >> 14, SPOT_ENDS[entry >> 8 & 3]
        )
    return move


def _meld_move(seat: int, cards: tuple[int, ...]) -> Move:
    """The move of ``seat`` melding ``cards`` (canonical order)."""
    moves = _MELD_MOVES[seat]
    move = moves.get(cards)
    if move is None:
        if len(moves) > 1 << 16:
            moves.clear()
        move = moves[cards] = Move(seat, "meld", cards)
    return move


def _naturals(mask: int) -> list[int]:
    """The natural cards whose bits are set in ``mask``, in code order."""
    out = []
    while mask:
        low = mask & -mask
        mask ^= low
        out.append(BIT_INDEX[low % 67])
    return out


CARD_BIT: Final = [1 << c for c in range(52)] + [
    0
]  # a card's bit in a presence mask (the joker: none)
_SUIT_SHIFT: Final = [13 * (c // 13) for c in range(52)]  # where a card's suit starts in a mask
_RANK: Final = [c % 13 for c in range(52)]
# The discard pile's running sums (Game._pile_sums): the natural cards in bits 0-51, the number
# of jokers in bits 52-54, and PILE_MELD when the cards make a meld.
_NATURALS: Final = (1 << 52) - 1
_PILE_JOKER: Final = 1 << 52
PILE_MELD: Final = 1 << 55


@lru_cache(maxsize=1 << 14)
def physical_cards(played: tuple[int, ...]) -> tuple[int, ...]:
    """The cards in a hand that make ``played`` (a declared joker is the joker)."""
    return tuple(p if p < JOKER_AS else JOKER for p in played)


# CALL_ORDER[players][seat]: who is asked, in order, when seat's discard opens a Rummy call window
CALL_ORDER: Final = [[[(seat + k) % n for k in range(1, n)] for seat in range(n)] for n in range(9)]
# _DISCARD_HALVES[seat][half << 7 | ranks held]: the seat's discards of those cards, a suit in
# two halves (half 2 * suit: ranks 2 to 8, bits 0-6 of the suit; 2 * suit + 1: ranks 9 to ace,
# bits 7-12), each list made and filled on first use. A hand's discards are its eight halves' rows
# in order: 1,024 rows a seat, which stay in the core's cache, where a row for each of a suit's
# 8,192 masks (32,768 a seat) had to be fetched from memory for each suit.
_DISCARD_HALVES: Final[list[list[tuple[Move, ...]] | None]] = [None] * 8


def _discard_halves(seat: int) -> list[tuple[Move, ...]]:
    """The seat's list of :data:`_DISCARD_HALVES`, made and filled if it was not there."""
    rows = _DISCARD_HALVES[seat]
    if rows is None:
        discards = _DISCARD[seat]
        rows = _DISCARD_HALVES[seat] = [
            tuple(discards[13 * (half >> 1) + 7 * (half & 1) + r] for r in range(7) if m >> r & 1)
            for half in range(8)
            for m in range(128)
        ]
    return rows


def _add_discards(moves: list[Move], seat: int, held: int) -> None:
    """Add to ``moves`` the seat's discards of the natural cards of mask ``held``, in the order
    of the cards (the eight halves' rows of :data:`_DISCARD_HALVES`)."""
    halves = _discard_halves(seat)
    moves += halves[held & 0x7F]
    moves += halves[0x080 | held >> 7 & 0x3F]
    moves += halves[0x100 | held >> 13 & 0x7F]
    moves += halves[0x180 | held >> 20 & 0x3F]
    moves += halves[0x200 | held >> 26 & 0x7F]
    moves += halves[0x280 | held >> 33 & 0x3F]
    moves += halves[0x300 | held >> 39 & 0x7F]
    moves += halves[0x380 | held >> 46]


# _RUN_ROWS[seat][jokers][suit << 13 | ranks held]: the seat's run melds of those cards (lists
# made and filled on first use). Apart from the discards: a hand's free play reads each table's
# slot and the tuple in it, no row between (most suits make no run: the shared empty tuple).
_RUN_ROWS: Final[list[list[list[tuple[Move, ...] | None] | None]]] = [
    [None] * (MAX_JOKERS + 1) for _ in range(8)
]
# _GROUP_MOVES[seat][jokers][rank << 4 | suits held]: the seat's group melds of that rank
# (made on first use).
_GROUP_MOVES: Final[list[list[list[tuple[Move, ...] | None]]]] = [
    [[None] * (13 << 4) for _ in range(MAX_JOKERS + 1)] for _ in range(8)
]


def _group_row(seat: int, jokers: int, key: int) -> tuple[Move, ...]:
    """The row of :data:`_GROUP_MOVES` at ``key`` for ``seat`` and ``jokers``, made."""
    row = _GROUP_MOVES[seat][jokers][key] = tuple(
        _meld_move(seat, cards) for cards in GROUP_TABLE[jokers][key]
    )
    return row


# _DRAW_ROWS[seat][found]: the seat's draw moves whose bit mask (see _draw_moves) is found
# (made on first use).
_DRAW_ROWS: Final[list[dict[int, tuple[Move, ...]]]] = [{} for _ in range(8)]


def _draw_row(seat: int, found: int) -> tuple[Move, ...]:
    """The row of :data:`_DRAW_ROWS` at ``found``, made: the stock's draw (bit 0 set) or the
    end of the hand (bit 0 clear: no stock left) and the takes of the bits set, in the order
    drawing, taking the top card, the top two, … (ending the hand last)."""
    rows = _DRAW_ROWS[seat]
    if len(rows) > 1 << 16:
        rows.clear()
    takes = _TAKE[seat]
    moves = [_DRAW[seat]] if found & 1 else []
    n = 1
    mask = found >> 1
    while mask:
        if mask & 1:
            moves.append(takes[n])
        mask >>= 1
        n += 1
    if not found & 1:
        moves.append(_END[seat])
    row = rows[found] = tuple(moves)
    return row


def _run_row(seat: int, jokers: int, suit: int, m: int) -> tuple[Move, ...]:
    """The row of :data:`_RUN_ROWS` for ``suit`` with ranks ``m`` held, made."""
    rows = _RUN_ROWS[seat][jokers]
    assert rows is not None
    found = run_row(suit, m, jokers)
    row = tuple([_meld_move(seat, cards) for cards in found]) if found else ()
    rows[suit << 13 | m] = row
    return row


def held_cards(counts: list[int], present: int) -> list[int]:
    """The distinct cards held, jokers last."""
    cards = _naturals(present)
    if counts[JOKER]:
        cards.append(JOKER)
    return cards


class MoveGeneration(GameFields):
    """The legal moves of the seat to act (see :meth:`legal_moves`)."""

    __slots__ = ()

    def legal_moves(self) -> tuple[Move, ...]:
        """Every legal move of the seat that must act now (empty when the hand is over).

        A tuple, in a fixed order: nothing a caller does with it changes the game.
        """
        if self._legal is None:
            phase = self.phase
            if phase == PLAY:
                seat = self.turn
                # (no card to meld first means must_mode is MUST_ANY)
                if (
                    self._must_use < 0
                    and self.hand_sizes[seat] >= 3
                    and self._going_out != "discard"
                ):
                    self._legal = tuple(self._free_play_moves(seat, self._no_discard))
                    return self._legal
                self._legal = tuple(
                    self._play_moves(
                        seat,
                        self._hands[seat],
                        self._masks[seat],
                        self.hand_sizes[seat],
                        self._must_use,
                        self._must_mode,
                        self._no_discard,
                        self._resume >= 0,
                    )
                )
            elif phase == DRAW:
                self._legal = self._draw_moves(self.turn)
            elif phase == CALL:
                seat = self._window[0]
                self._legal = (PASS_MOVES[seat], *self._rummy_moves(seat))
            else:
                self._legal = ()
        return self._legal

    def _draw_moves(self, seat: int) -> tuple[Move, ...]:
        # The moves are found as a bit mask (bit n: taking the top n discards is legal; bit 0:
        # drawing from the stock, else ending the hand) and their tuple is looked up by it in
        # _DRAW_ROWS: one dictionary look-up where a list, its appends and its copy into a new
        # tuple were made at every draw
        found = 1 if self.stock else 0
        pile = self.discard
        if pile:
            size = self.hand_sizes[seat]
            present = self._masks[seat]
            hand = self._hands[seat]
            jokers = hand[JOKER]
            pickup = self._pickup
            # the top card
            c = pile[-1]
            if c == JOKER:
                jokers += 1
            else:
                present |= 1 << c
            held = hand[c]  # copies of it, which may not be discarded either
            if pickup == "top-free":
                ok = size > held or self._can_take(seat, 1, -1)
            elif size >= 4 and size - 2 > held:
                # a 3-card meld or a lay-off of the card leaves at least 2 cards, not all
                # copies of it
                ok = (pickup == "must-meld" and c in self._spots()) or meldable(c, present, jokers)
            else:
                ok = self._can_take(seat, 1, self._take_mode(1))
            if ok:
                found |= 2
            # deeper cards: the card taken must be melded or laid off (or, new-meld: melded)
            if len(pile) > 1:
                # the cards that can be laid off, as bits (the joker's is bit 52)
                if pickup == "new-meld":
                    deep_mode, layable = MUST_NEW, 0
                else:
                    deep_mode, layable = MUST_ANY, self._layable()
                small = 5 - size  # below this depth the hand stays too small for the shortcut
                depth = len(pile)
                for n in range(2, depth + 1):  # (by index: compiled, a slice is a new list)
                    c = pile[depth - n]
                    if c == JOKER:
                        jokers += 1
                    else:
                        present |= 1 << c
                    if n < small:
                        if self._can_take(seat, n, deep_mode):
                            found |= 1 << n
                    elif layable >> c & 1:
                        found |= 1 << n
                    elif jokers or c == JOKER:
                        if meldable(c, present, jokers):
                            found |= 1 << n
                    # meldable() without jokers, inline: a run of its suit, or a group
                    elif IN_RUN[present >> _SUIT_SHIFT[c] & 0x1FFF] >> _RANK[c] & 1 or (
                        (same := present & SAME_RANK[c]) & (same - 1)  # 2 of its rank
                    ):
                        found |= 1 << n
        row = _DRAW_ROWS[seat].get(found)
        if row is None:
            row = _draw_row(seat, found)
        return row

    def _take_mode(self, n: int) -> int:
        """The obligation that taking ``n`` discards brings (-1: none)."""
        pickup = self._pickup
        if pickup == "new-meld":
            return MUST_NEW
        if n > 1 or pickup == "must-meld":
            return MUST_ANY
        return -1

    def _can_take(self, seat: int, n: int, mode: int, resume: bool = False) -> bool:
        """Whether after taking the top ``n`` discards the seat has a legal way to go on."""
        size = self.hand_sizes[seat]
        pile = self.discard
        depth = len(pile)
        deepest = pile[depth - n]  # the card taken that must be played
        hand = self._hands[seat]
        if mode < 0 and size > hand[deepest]:
            return True  # a card that is no copy of the one taken can be discarded
        counts = hand[:]
        present = self._masks[seat]
        for i in range(depth - n, depth):  # (by index: compiled, a slice is a new list)
            c = pile[i]
            counts[c] = counts[c] + 1
            if c != JOKER:
                present |= 1 << c
        must = deepest if mode >= 0 else -1
        no_discard = deepest if n == 1 else -1
        return bool(
            self._play_moves(
                seat, counts, present, size + n, must, max(mode, 0), no_discard, resume, True
            )
        )

    def _claimable_depths(self) -> list[int]:
        """Depths of the discard pile (1 = top) that a Rummy call could claim now: the card
        there can be laid off on the table, or makes a meld with cards above it."""
        mode = self._rummy
        pile = self.discard
        if mode == "off" or not pile:
            return []
        layable = self._layable()
        if mode == "last-discard":
            return [1] if layable >> pile[-1] & 1 else []
        depths = []
        present = jokers = 0
        size = len(pile)
        for d in range(1, size + 1):  # (by index, as in _draw_moves)
            c = pile[size - d]
            if c == JOKER:
                jokers += 1
            else:
                present |= 1 << c
            if layable >> c & 1:
                depths.append(d)
            elif jokers or c == JOKER:
                if meldable(c, present, jokers):
                    depths.append(d)
            # meldable() without jokers, inline (as in _draw_moves)
            elif IN_RUN[present >> _SUIT_SHIFT[c] & 0x1FFF] >> _RANK[c] & 1 or (
                (same := present & SAME_RANK[c]) & (same - 1)  # 2 of its rank
            ):
                depths.append(d)
        return depths

    def _window_opens(self, sums: int) -> bool:
        """Whether something in the discard pile (``sums``: its running sums) could be melded
        without a card from a hand."""
        mode = self._rummy
        if mode == "pile":
            if sums >= PILE_MELD:
                return True
            spots = self._spot_index or self._spots()
            return bool(sums & self._spot_mask) or (sums >= _PILE_JOKER and JOKER in spots)
        if mode == "off" or not self.discard:
            return False
        return self.discard[-1] in self._spots()

    def _pile_push(self, card: int) -> int:
        """Keep :attr:`_pile_sums` up to date with ``card`` put on the discard pile; return the
        new sums."""
        sums = self._pile_sums
        now = sums[-1] if sums else 0
        if card == JOKER:
            now += _PILE_JOKER
            if now < PILE_MELD and meldable(card, now & _NATURALS, now >> 52 & 7):
                now |= PILE_MELD
        else:
            now |= 1 << card
            # the pile below made no meld: a meld now must use the new card (meldable() inline
            # when there are no jokers)
            if now < PILE_MELD and (
                meldable(card, now & _NATURALS, now >> 52)
                if now >= _PILE_JOKER
                else IN_RUN[now >> _SUIT_SHIFT[card] & 0x1FFF] >> _RANK[card] & 1
                or (same := now & SAME_RANK[card]) & (same - 1)  # 2 of its rank
            ):
                now |= PILE_MELD
        sums.append(now)
        return now

    def _reset_caches(self) -> None:
        """Recompute what is derived from the public state (after it was set from outside)."""
        self._legal = None
        self._spot_index = None
        self._known_view = None
        self._meld_view = None
        for m in self.melds:
            m.view = None
        self._pile_sums = []
        for c in self.discard:
            self._pile_push(c)

    def _rummy_moves(self, seat: int) -> list[Move]:
        last = self._rummy == "last-discard"
        mode = MUST_LAYOFF if last else MUST_ANY
        size = self.hand_sizes[seat]
        calls = _RUMMY[seat]
        return [
            calls[d]
            for d in self._claimable_depths()
            if (not last and size + d >= 5) or self._can_take(seat, d, mode, last)
        ]

    def _spots(self) -> dict[int, list[int]]:
        """Every lay-off the table allows: card -> its entries
        (:func:`~rummy500.engine.melds.spot_entry`), in meld order."""
        spots = self._spot_index
        if spots is None:
            spots = self._spot_index = layoff_index(self.melds)
            mask = 0
            for c in spots:
                if c != JOKER:
                    mask |= 1 << c
            self._spot_mask = mask
        return spots

    def _layable(self) -> int:
        """The cards that can be laid off on the table now, as bits: the natural cards' (bits
        0-51) and the joker's (bit 52): a bit test where ``card in self._spots()`` is a
        dictionary look-up."""
        spots = self._spot_index
        if spots is None:
            spots = self._spots()
        return self._spot_mask | (1 << JOKER if JOKER in spots else 0)

    def _meld_changed(self, meld: TableMeld, old: tuple[int, ...]) -> None:
        """Update the lay-off index for ``meld``, just made (``old`` empty) or extended (``old``:
        the lay-offs it allowed before, as :func:`~rummy500.engine.melds.meld_spots` gives
        them), keeping each card's entries in meld order (the order of the ints)."""
        spots = self._spot_index
        if spots is None:
            return  # rebuilt when next needed
        mask = self._spot_mask
        new = meld_spots(meld)
        meld.spot_list = new
        if not old:  # a new meld: it has the highest number, its entries go last
            for item in new:
                card = item & 63
                found = spots.get(card)
                if found is None:
                    spots[card] = [item >> 6]
                    mask |= CARD_BIT[card]
                else:
                    found.append(item >> 6)
            self._spot_mask = mask
            return
        for item in old:
            if _holds(new, item):
                continue
            card = item & 63
            entries = spots[card]
            if len(entries) == 1:
                del spots[card]
                mask &= ~CARD_BIT[card]  # (the joker has no bit)
            else:
                entries.remove(item >> 6)
        for item in new:
            if _holds(old, item):
                continue
            card = item & 63
            entry = item >> 6
            found = spots.get(card)
            if found is None:
                spots[card] = [entry]
                mask |= CARD_BIT[card]
            elif found[-1] < entry:
                found.append(entry)
            else:  # before the first entry of a later meld, or of this one further up
                i = 0
                while found[i] < entry:
                    i += 1
                found.insert(i, entry)
        self._spot_mask = mask

    def _play_moves(
        self,
        seat: int,
        counts: list[int],
        present: int,
        size: int,
        must: int,
        mode: int,
        no_discard: int,
        resume: bool,
        first: bool = False,
    ) -> list[Move]:
        """The meld, lay-off and discard moves of a seat holding ``counts``.

        ``must`` is the card that has to be melded first (-1: none) and ``mode`` how;
        ``resume`` means the turn goes back after the lay-off (a last-discard Rummy call).
        With ``first`` it stops at the first legal move found.
        """
        moves: list[Move] = []
        going_out = self._going_out
        # melds
        if mode != MUST_LAYOFF and size >= 3:
            made = _MELD_MOVES[seat]
            for cards in melds_from_mask(present, counts[JOKER], must):
                left = size - len(cards)
                if left == 0 and going_out == "discard":
                    continue
                move = made.get(cards) or _meld_move(seat, cards)
                if (
                    no_discard >= 0
                    and left <= counts[no_discard]
                    and not self._continues(counts, size, move, no_discard)
                ):
                    continue
                moves.append(move)
                if first:
                    return moves
        # lay-offs
        if mode != MUST_NEW and self.melds:
            spots = self._spots()
            if must >= 0:
                held: list[int] = [must] if must in spots else []  # (a list: indexed compiled)
                if not held and not first:
                    return moves
            else:
                held = []
                layable = present & self._spot_mask
                while layable:
                    low = layable & -layable
                    layable ^= low
                    held.append(BIT_INDEX[low % 67])
                if counts[JOKER] and JOKER in spots:
                    held.append(JOKER)
            # a lay-off that leaves only copies of the card just taken must let them go too
            check_size = not resume and (
                size == 1 or (no_discard >= 0 and size - 1 <= counts[no_discard])
            )
            lay = _LAYOFF_MOVES[seat]
            for card in held:
                entries: list[Any] = spots[card]  # (Any: not unpacked, see _meld_changed)
                for entry in entries:
                    move = lay.get(entry) or _layoff_move(seat, entry)
                    if check_size:
                        if size == 1 and going_out == "discard":
                            continue
                        if size >= 2 and not self._continues(counts, size, move, no_discard):
                            continue
                    moves.append(move)
                    if first:
                        return moves
        # discards
        if must < 0 and size > 0:
            discards = _DISCARD[seat]
            if size == 1 and going_out == "unplayable":
                spots = self._spots()
                ds = [discards[c] for c in held_cards(counts, present) if c not in spots]
            else:
                ds = []
                _add_discards(ds, seat, present)
                if counts[JOKER]:
                    ds.append(discards[JOKER])
            if no_discard >= 0 and counts[no_discard]:
                # nor any copy of it (docs/rules.md §4.3: copies are interchangeable)
                _drop(ds, discards[no_discard])
            if first:
                return ds[:1] or moves
            moves += ds
        return moves

    def _free_play_moves(self, seat: int, no_discard: int) -> list[Move]:
        """:meth:`_play_moves` for the usual case: nothing to meld first, at least 3 cards (so
        any lay-off leaves a card), and going out without a discard allowed. Runs and discards
        come from per-seat tables, suit by suit."""
        counts = self._hands[seat]
        present = self._masks[seat]
        jokers = counts[JOKER]
        size = self.hand_sizes[seat]
        if jokers > MAX_JOKERS or (no_discard >= 0 and counts[no_discard] > 1):
            # (holding another copy of the card just taken is rare: two decks, or jokers)
            return self._play_moves(seat, counts, present, size, -1, 0, no_discard, False)
        rows = _RUN_ROWS[seat][jokers]
        if rows is None:
            rows = _RUN_ROWS[seat][jokers] = [None] * (4 << 13)
        a = present & 0x1FFF
        b = (present >> 13) & 0x1FFF
        c = (present >> 26) & 0x1FFF
        d = present >> 39
        r0, r1, r2, r3 = rows[a], rows[8192 | b], rows[16384 | c], rows[24576 | d]
        if r0 is None:
            r0 = _run_row(seat, jokers, 0, a)
        if r1 is None:
            r1 = _run_row(seat, jokers, 1, b)
        if r2 is None:
            r2 = _run_row(seat, jokers, 2, c)
        if r3 is None:
            r3 = _run_row(seat, jokers, 3, d)
        ranks = group_ranks(a, b, c, d, jokers)  # ranks held in enough suits for a group
        if ranks:
            groups = _GROUP_MOVES[seat][jokers]
            moves: list[Move] = []
            while ranks:
                low = ranks & -ranks
                ranks ^= low
                key = group_key(BIT_INDEX[low % 67], a, b, c, d)
                moves += groups[key] or _group_row(seat, jokers, key)
            # (most suits make no run: compiled, `+=` of an empty tuple is still a generic call)
            if r0:
                moves += r0
            if r1:
                moves += r1
            if r2:
                moves += r2
            if r3:
                moves += r3
        else:
            moves = [*r0, *r1, *r2, *r3]
        if no_discard >= 0 and moves:
            # the card just taken from the top may not be discarded: a meld leaving it alone
            # must let it be laid off
            moves = [
                m
                for m in moves
                if size - len(m.cards) != 1 or self._continues(counts, size, m, no_discard)
            ]
        # lay-offs
        if self.melds:
            spots = self._spot_index
            if spots is None:
                spots = self._spots()
            layable = present & self._spot_mask
            if layable or (jokers and JOKER in spots):
                lay = _LAYOFF_MOVES[seat]
                while layable:
                    low = layable & -layable
                    layable ^= low
                    entries: list[Any] = spots[BIT_INDEX[low % 67]]  # (Any: see _meld_changed)
                    for entry in entries:
                        moves.append(lay.get(entry) or _layoff_move(seat, entry))
                if jokers and JOKER in spots:
                    entries = spots[JOKER]
                    for entry in entries:
                        moves.append(lay.get(entry) or _layoff_move(seat, entry))
        # discards, but not the card just taken from the top (held once here: see above)
        held = present
        if no_discard >= 0 and counts[no_discard]:
            if no_discard == JOKER:
                jokers = 0
            else:
                held = present & ~(1 << no_discard)
        _add_discards(moves, seat, held)
        if jokers:
            moves.append(_DISCARD[seat][JOKER])
        return moves

    def _continues(self, counts: list[int], size: int, move: Move, no_discard: int) -> bool:
        """After ``move``, can the player still finish the turn?

        Only copies of the card just taken from the top of the pile can be stuck: none of them
        may be discarded (docs/rules.md §4.3), so a hand left holding nothing else must lay
        every one of them off (which empties the hand).
        """
        if no_discard < 0:
            return True
        played = sum(1 for p in move.cards if (p if p < JOKER_AS else JOKER) == no_discard)
        stuck = counts[no_discard] - played
        left = size - len(move.cards)
        if left == 0 or left > stuck:
            return True  # nothing left, or another card to discard
        if self._going_out == "discard":
            return False
        # Would the copies fit the table, one after another, once this move is on it?
        if move.verb == "meld":
            is_run, key, lo, hi, cards = analyze_meld(move.cards)
            melds = [*self.melds, new_meld(0, is_run, key, lo, hi, cards, 0)]
        else:
            melds = [m.copy() for m in self.melds]
            target = next(m for m in melds if m.number == move.number)
            extend_meld(target, move.cards[0], move.end, 0)
        return _lays_off_all(melds, no_discard, stuck)


def _holds(items: tuple[int, ...], item: int) -> bool:
    """``item in items`` for a few ints: compiled, a loop of machine-word comparisons where
    ``in`` is a generic call that compares boxed ints."""
    for x in items:  # noqa: SIM110 (any() of a generator: slower in the pure build)
        if x == item:
            return True
    return False


def _drop(moves: list[Move], move: Move) -> None:
    """Take ``move`` (one of the ready-made moves) out of ``moves`` if it is there: found by
    identity from the end, where the discards are (``list.remove`` compares tuples from the
    start)."""
    for i in range(len(moves) - 1, -1, -1):
        if moves[i] is move:
            del moves[i]
            return


def _lays_off_all(melds: list[TableMeld], card: int, copies: int) -> bool:
    """Can ``copies`` copies of ``card`` be laid off on ``melds``, one after another?"""
    if copies == 1:
        return any(m.layoff_spots(card) for m in melds)
    for i, meld in enumerate(melds):
        for played, pos in meld.layoff_spots(card):
            trial = meld.copy()
            end = ("low" if pos < meld.lo else "high") if meld.is_run else ""
            extend_meld(trial, played, end, 0)
            if _lays_off_all([*melds[:i], trial, *melds[i + 1 :]], card, copies - 1):
                return True
    return False


def new_meld(
    number: int, is_run: bool, key: int, lo: int, hi: int, cards: tuple[int, ...], seat: int
) -> TableMeld:
    if is_run:
        return TableMeld(number, True, key, list(cards), [seat] * len(cards), lo, hi)
    return TableMeld(number, False, key, list(cards), [seat] * len(cards), 0, 0, hi)


def meld_from_cards(number: int, cards: list[int], owners: list[int]) -> TableMeld:
    """Rebuild a table meld (possibly longer than 4 or laid off onto) from its cards in order."""
    naturals = [c for c in cards if c < 52]
    ranks = {c % 13 for c in naturals}
    group = any(c >= JOKER_RANK for c in cards) or (len(ranks) == 1 and len(naturals) > 1)
    if group:
        rank = ranks.pop()
        mask = 0
        for c in naturals:
            mask |= 1 << (c // 13)
        return TableMeld(number, False, rank, cards[:], owners[:], suits=mask)
    first = cards[0] if cards[0] < 52 else cards[0] - JOKER_AS
    suit = first // 13
    lo = first % 13  # a run never starts with a high ace
    return TableMeld(number, True, suit, cards[:], owners[:], lo=lo, hi=lo + len(cards) - 1)


def extend_meld(meld: TableMeld, played: int, end: str, seat: int) -> int:
    """Lay ``played`` off on ``meld`` (already checked); return the position it took."""
    meld.spot_list = None
    meld.view = None
    if meld.is_run:
        rank = (played if played < JOKER_AS else played - JOKER_AS) % 13
        if rank:
            pos = rank
        elif end:
            pos = 0 if end == "low" else 13
        else:
            pos = 0 if meld.lo == 1 else 13  # the one end an ace fits
        if pos < meld.lo:
            meld.lo = pos
            meld.cards.insert(0, played)
            meld.owners.insert(0, seat)
        else:
            meld.hi = pos
            meld.cards.append(played)
            meld.owners.append(seat)
        return pos
    if played < 52:
        meld.suits |= 1 << (played // 13)
    meld.cards.append(played)
    meld.owners.append(seat)
    return -1
