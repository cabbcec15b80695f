// Computer players as the page shows them: the name the server gave each one (a name, the same
// in every language) and a badge of its level (rummy500.bots.LEVELS: easy, medium, hard, expert,
// random, named as the server's rules catalog names them), wherever a seat is shown: the seats
// round the table, the waiting room, the lobby.
import { html } from './lib.js';
import { t } from './i18n.js';
import { levelHelp, levelName } from './rules.js';

/** The level of a computer seat ('easy' for a seat of a server that did not say). */
export function levelOf(seat) {
  return (seat && seat.level) || 'easy';
}

/** "computer, easy": a computer player's badge, coloured by level, its help as a tooltip. */
export function LevelBadge({ level }) {
  const shown = level || 'easy';
  return html`<span class="tag level-badge" data-level=${shown} title=${levelHelp(shown)}>
    ${t('seat.computer', { level: levelName(shown) })}
  </span>`;
}

/** A computer seat in a list of seats: its name (when the server gave it one) and its level. */
export function computerSeatText(seat) {
  const level = levelName(levelOf(seat));
  return seat.name ? t('lobby.seat.bot.named', { name: seat.name, level }) : t('lobby.seat.bot', { level });
}
