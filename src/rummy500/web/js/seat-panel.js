// Another player at the table: name, kind (a computer and its level, away, left, free), cards held,
// score, whose turn, and the cards everyone saw them take from the pile.
import { html, cls } from './lib.js';
import { t } from './i18n.js';
import { cardShort, cardList } from './cards.js';
import { seatColorClass } from './seat-colors.js';
import { LevelBadge } from './names.js';
import { useTableRatings, shownRating } from './play-now.js';

export function SeatPanel({ state, seat, info, isTurn, you, rating }) {
  const view = state.view;
  const size = view ? view.hand_sizes[seat] : 0;
  const total = view ? view.totals[seat] : 0;
  const points = view ? view.points[seat] : 0;
  const known = view && view.known_cards ? view.known_cards[seat] || [] : [];
  // a seat given up during the game: who left it, and that the computer plays it meanwhile
  const left = !!(info && info.left);
  const name = (info && (info.name || (left && info.left_name))) || seat;
  const computer = info && info.kind === 'bot';
  const away = info && info.kind === 'human' && info.taken && !info.connected;
  const botPlays = info && info.kind === 'human' && info.bot_playing;
  const label = view ? t('seat.label', { name, n: size, total, points }) : name;
  return html`<li
    class=${cls('seat', seatColorClass(seat), isTurn && 'turn', you && 'you')}
    aria-current=${isTurn ? 'true' : undefined}
    aria-label=${label + (isTurn ? ` — ${t('seat.turn')}` : '')}
    data-seat=${seat}
  >
    <div class="seat-head">
      <span class="seat-swatch" aria-hidden="true"></span>
      <strong class="seat-name">${name}</strong>
      ${you && html`<span class="tag">${t('seat.you')}</span>`}
      ${computer && html`<${LevelBadge} level=${info.level} />`}
      ${rating && html`<span class="tag" data-seat-rating>${t('seat.rating', { rating: shownRating(rating) })}</span>`}
      ${away && html`<span class="tag warn">${botPlays ? t('seat.away.bot') : t('seat.away')}</span>`}
      ${left && html`<span class="tag warn" data-left>${t('seat.left')}</span>`}
      ${info && info.kind === 'human' && !info.taken && !left && html`<span class="tag">${t('seat.free')}</span>`}
    </div>
    ${view && html`<div class="seat-body" aria-hidden="true">
      <span class="mini-hand">${Array.from({ length: Math.min(size, 13) }, (_, i) => html`<span key=${i} class="mini-back"></span>`)}</span>
      <span class="seat-count">${t('seat.cards', { n: size })}</span>
    </div>
    <div class="seat-score" aria-hidden="true">
      <span>${t('seat.total', { total })}</span>
      <span class="muted">${t('seat.points', { points })}</span>
      ${isTurn && html`<span class="turn-mark">${t('seat.turn')}</span>`}
    </div>`}
    ${known.length > 0 &&
    html`<div class="known" aria-label=${t('seat.known', { cards: cardList(known) })}>
      ${t('seat.known.short')} ${known.map(cardShort).join(' ')}
    </div>`}
  </li>`;
}

/** The other players, round the table from the player's left. */
export function OtherSeats({ state, seats, turnSeat }) {
  const infoOf = (seat) => (state.seats || []).find((s) => s.seat === seat);
  const ratings = useTableRatings(state.table && state.table.rated ? state.table.table_id : null);
  return html`<section class="others" aria-label=${t('table.players')}>
    <ul class="seat-list">
      ${seats.map(
        (seat) => html`<${SeatPanel} key=${seat} state=${state} seat=${seat} info=${infoOf(seat)} isTurn=${turnSeat === seat} rating=${ratings[seat]} />`,
      )}
    </ul>
  </section>`;
}
