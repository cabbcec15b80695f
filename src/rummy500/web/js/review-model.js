// The pure parts of the game review screen: reading the server's NDJSON stream a chunk at a time,
// and moving through the replay (a hand's positions, one before each move and one after the
// last) and the list of decisions that points into it.

import { formatNumber } from './i18n.js';
import { seatName } from './table-state.js';

/** The complete lines of `rest + chunk`, parsed, and what is left of an unfinished line. */
export function splitLines(rest, chunk) {
  const parts = (rest + chunk).split('\n');
  const left = parts.pop();
  const lines = parts.filter((line) => line.trim()).map((line) => JSON.parse(line));
  return { lines, rest: left };
}

/**
 * What the page shows for one line of the stream: the state before it and the line give the
 * state after it ({ status: 'queued' | 'running' | 'done' | 'failed', done, total, data, error }).
 */
export function readLine(state, line) {
  switch (line.type) {
    case 'queued':
      return { ...state, status: 'queued' };
    case 'progress':
      return { ...state, status: 'running', done: line.done, total: line.total, counts: line.counts || null };
    case 'review':
      return { ...state, status: 'done', done: state.total, data: line };
    case 'error':
      return { ...state, status: 'failed', error: line.message };
    default:
      return state;
  }
}

/** The decision being reviewed while `done` of `total` are: 'move 12 of 54' (1-based). */
export function reviewingNumber(done, total) {
  return { k: Math.min(done + 1, Math.max(total, 1)), n: total };
}

/** The next position (`delta` 1) or the previous one (-1), across the hands; the same at either
 * end of the game. A position is { hand: index in the replay, step: index among its positions }. */
export function stepBy(replay, pos, delta) {
  let { hand, step } = pos;
  step += delta;
  if (step >= replay[hand].positions.length) {
    if (hand + 1 >= replay.length) return pos;
    return { hand: hand + 1, step: 0 };
  }
  if (step < 0) {
    if (hand === 0) return pos;
    return { hand: hand - 1, step: replay[hand - 1].positions.length - 1 };
  }
  return { hand, step };
}

/** What the replay says at the end of a hand (the server's `ended_by` and `out`, from the
 * record): who went out, that the stock ran out, or only that the hand is over (a record that
 * stops in the hand, as one ended by automatic play's move cap does). `seat` names the player
 * who went out, else null. */
export function handEnd(hand) {
  if (hand.ended_by === 'out' && hand.out) return { key: 'summary.out', seat: hand.out };
  if (hand.ended_by === 'stock') return { key: 'summary.stock', seat: null };
  return { key: 'review.hand.over', seat: null };
}

/** The first or the last position of the game. */
export function edge(replay, last) {
  if (!last) return { hand: 0, step: 0 };
  const hand = replay.length - 1;
  return { hand, step: replay[hand].positions.length - 1 };
}

/** Where the replay shows `decision`: the position just before its move. */
export function positionOf(replay, decision) {
  const hand = replay.findIndex((h) => h.hand === decision.hand);
  return { hand: Math.max(hand, 0), step: decision.index };
}

/** The decision reviewed at `pos` (the seat's move there), or null. */
export function decisionAt(review, replay, pos) {
  const number = replay[pos.hand] && replay[pos.hand].hand;
  const hand = review.hands.find((h) => h.hand === number);
  return (hand && hand.decisions.find((d) => d.index === pos.step)) || null;
}

/** The decisions that lost points (every tag but good), in order: what "next mistake" visits. */
export function costly(review) {
  return review.hands.flatMap((h) => h.decisions.filter((d) => d.tag !== 'good'));
}

/** The first decision that lost points after `pos` (wrapping to the first of the game), or
 * null when none did. */
export function nextCostly(review, replay, pos) {
  const all = costly(review);
  if (!all.length) return null;
  const order = (d) => {
    const p = positionOf(replay, d);
    return [p.hand, p.step];
  };
  const after = all.find((d) => {
    const [hand, step] = order(d);
    return hand > pos.hand || (hand === pos.hand && step > pos.step);
  });
  return after || all[0];
}

/** A number of points as the list shows it: at most one decimal, no trailing zero, with the
 * language's decimal mark. */
export function points(x) {
  return formatNumber(Math.round(x * 10) / 10);
}

/** A seat of the reviewed game named as the table names it (`table`: GET /api/tables/{id}, with
 * its seats; a computer player without a name is "Computer P2"), else by the review's `names`. */
export function reviewSeatName(table, names, seat) {
  if (table && table.seats && table.seats.some((s) => s.seat === seat)) return seatName(table, seat);
  return (names && names[seat]) || seat;
}
