// The lines of the Moves log, in words: who dealt, every move (the cards taken from the pile by
// name), a move the computer made for an away player or for one whose time ran out, an undo.
import { t } from './i18n.js';
import { describeMove } from './moves.js';

/** One log entry ({ event, pile }) as a line; `name(seat)` says who a seat is, and the lines of
 * `me` (the page's player) are in the second person. An event's move comes as data
 * (docs/protocol.md, "Moves as data"). */
export function describeEvent(entry, name, me = null) {
  const event = entry.event || {};
  if (event.kind === 'deal') {
    return event.dealer === me && me ? t('event.deal.you', { n: event.hand_number }) : t('event.deal', { n: event.hand_number, who: name(event.dealer) });
  }
  if (event.kind === 'move') {
    const text = describeMove(event, name, entry.pile || [], me);
    if (event.by === 'takeover') return `${text} ${t('event.by.takeover')}`;
    if (event.by === 'timeout') return me && event.seat === me ? t('event.timeout.you') : t('event.timeout', { who: name(event.seat) });
    return text;
  }
  if (event.kind === 'undo') return t('event.undo', { move: describeMove(event, name, entry.pile || [], me) });
  return '';
}

/** Whether a log entry is worth a line: a Rummy! call let go is not (the call window is the
 * business of those asked; every discard on a pile nobody takes would add lines). */
export function isLogged(entry) {
  const event = entry.event || {};
  return !(event.kind === 'move' && event.verb === 'pass');
}
