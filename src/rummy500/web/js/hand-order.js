// The order of the cards in the player's hand: kept across updates (the player's own order),
// new cards at the right, or in their sorted place when the hand is sorted.
import { sortCards } from './cards.js';

/**
 * The hand's entries ({ id, code }) for the cards `codes`, keeping the entries of `prev` that are
 * still there in their order; `uid` ({ n }) numbers the new ones. Returns the entries and the ids
 * of the cards that just arrived.
 */
export function reconcileHand(prev, codes, sortMode, uid) {
  const pool = new Map();
  for (const c of codes) pool.set(c, (pool.get(c) || 0) + 1);
  const kept = [];
  for (const e of prev) {
    const n = pool.get(e.code) || 0;
    if (n > 0) {
      pool.set(e.code, n - 1);
      kept.push(e);
    }
  }
  const added = [];
  for (const c of codes) {
    const n = pool.get(c) || 0;
    if (n > 0) {
      pool.set(c, n - 1);
      added.push({ id: `c${++uid.n}`, code: c });
    }
  }
  let entries = [...kept, ...added];
  if (sortMode !== 'custom') entries = sortCards(entries, sortMode, (e) => e.code);
  return { entries, added: new Set(added.map((e) => e.id)) };
}

/** The cards in a saved order (cards the order does not know go last). */
export function inSavedOrder(codes, saved) {
  const place = (c) => {
    const i = saved.indexOf(c);
    return i < 0 ? 99 : i;
  };
  return [...codes].sort((a, b) => place(a) - place(b));
}

/** The entries with the one at `from` moved to `to`; null when that is no move. */
export function moveEntry(entries, from, to) {
  if (to < 0 || to >= entries.length || from === to) return null;
  const next = [...entries];
  const [card] = next.splice(from, 1);
  next.splice(to, 0, card);
  return next;
}

/** The ids of the entries holding `cards` (each card once, duplicates from a double deck too). */
export function idsOfCards(entries, cards) {
  const pool = [...cards];
  const ids = new Set();
  for (const e of entries) {
    const i = pool.indexOf(e.code);
    if (i >= 0) {
      ids.add(e.id);
      pool.splice(i, 1);
    }
  }
  return ids;
}
