// The lines of the Moves log, in words: who dealt, every move (the cards taken from the pile by
// name), a move the computer made for an away player or for one whose time ran out, an undo.
import { t } from './i18n.js';
import { describeMove } from './moves.js';

/** One log entry ({ event, pile }) as a line; `name(seat)` says who a seat is. An event's move
 * comes as data (docs/protocol.md, "Moves as data"). */
export function describeEvent(entry, name) {
  const event = entry.event || {};
  if (event.kind === 'deal') return t('event.deal', { n: event.hand_number, who: name(event.dealer) });
  if (event.kind === 'move') {
    const text = describeMove(event, name, entry.pile || []);
    if (event.by === 'takeover') return `${text} ${t('event.by.takeover')}`;
    if (event.by === 'timeout') return t('event.timeout', { who: name(event.seat) });
    return text;
  }
  if (event.kind === 'undo') return t('event.undo', { move: describeMove(event, name, entry.pile || []) });
  return '';
}
