// The lines of the Moves log, in words: who dealt, every move (the cards taken from the pile by
// name), a move the computer made for an away player or for one whose time ran out, an undo.
import { t } from './i18n.js';
import { parseMove, describeMove } from './moves.js';

/** One log entry ({ event, pile }) as a line; `name(seat)` says who a seat is. */
export function describeEvent(entry, name) {
  const event = entry.event || {};
  if (event.kind === 'deal') return t('event.deal', { n: event.hand_number, who: name(event.dealer) });
  if (event.kind === 'move') {
    const text = describeMove(event.move, name, entry.pile || []);
    if (event.by === 'takeover') return `${text} ${t('event.by.takeover')}`;
    if (event.by === 'timeout') return t('event.timeout', { who: name(parseMove(event.move).seat) });
    return text;
  }
  if (event.kind === 'undo') return t('event.undo', { move: describeMove(event.move, name, entry.pile || []) });
  return '';
}
