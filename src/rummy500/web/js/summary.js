// Between hands: what each player melded and was left holding (the cards counted against them),
// the hand's scores and the totals, a score table of every hand, and who the next deal waits
// for; at the end the winner, a chart of the totals by hand, the game record to download, and a
// rematch.
import { RatingChanges } from './play-now.js';
import { html, cls, useState, useEffect } from './lib.js';
import { t } from './i18n.js';
import { cardShort, cardList } from './cards.js';
import { Modal } from './dialogs.js';
import { api } from './api.js';
import * as store from './store.js';
import { navigate } from './app-shell.js';
import { totalsByHand } from './table-state.js';
import { seatColorClass } from './seat-colors.js';

function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

export function TotalsChart({ seats, results, name, target }) {
  const rows = [Object.fromEntries(seats.map((s) => [s, 0])), ...totalsByHand(results)];
  const all = rows.flatMap((r) => seats.map((s) => r[s] || 0));
  const top = Math.max(10, target || 0, ...all);
  const bottom = Math.min(0, ...all);
  const width = 320;
  const height = 180;
  const pad = { left: 36, right: 10, top: 10, bottom: 24 };
  const x = (i) => pad.left + (rows.length > 1 ? (i * (width - pad.left - pad.right)) / (rows.length - 1) : 0);
  const y = (v) => pad.top + ((top - v) * (height - pad.top - pad.bottom)) / (top - bottom || 1);
  const final = rows.at(-1);
  const label = t('chart.label', {
    totals: seats.map((s) => `${name(s)} ${final[s] || 0}`).join(', '),
  });
  return html`<figure class="chart">
    <svg viewBox=${`0 0 ${width} ${height}`} role="img" aria-label=${label}>
      <line x1=${pad.left} x2=${width - pad.right} y1=${y(0)} y2=${y(0)} class="axis" />
      ${target &&
      html`<line x1=${pad.left} x2=${width - pad.right} y1=${y(target)} y2=${y(target)} class="target" />
        <text x=${pad.left - 4} y=${y(target) + 4} text-anchor="end" class="tick">${target}</text>`}
      <text x=${pad.left - 4} y=${y(0) + 4} text-anchor="end" class="tick">0</text>
      ${rows.map(
        (_, i) => html`<text key=${i} x=${x(i)} y=${height - 6} text-anchor="middle" class="tick">${i}</text>`,
      )}
      ${seats.map(
        (s) => html`<g key=${s} class=${cls('series', seatColorClass(s))}>
          <polyline points=${rows.map((r, i) => `${x(i)},${y(r[s] || 0)}`).join(' ')} />
          ${rows.map((r, i) => html`<circle key=${i} cx=${x(i)} cy=${y(r[s] || 0)} r="3" />`)}
        </g>`,
      )}
    </svg>
    <figcaption>
      <span class="muted">${t('chart.caption')}</span>
      <ul class="legend">
        ${seats.map(
          (s) => html`<li key=${s} class=${seatColorClass(s)}><span class="seat-swatch" aria-hidden="true"></span>${name(s)}</li>`,
        )}
      </ul>
    </figcaption>
  </figure>`;
}

/** The cards a player was left holding, with suit symbols (their names for screen readers). */
function LeftCards({ cards }) {
  if (!cards || !cards.length) return null;
  return html`<span class="left-cards" data-left-cards role="img" aria-label=${t('summary.left.cards', { cards: cardList(cards) })}>
    ${cards.map((c, i) => html`<span key=${i} class=${cls('left-card', /[DH]$/.test(c) && 'red')}>${cardShort(c)}</span>`)}
  </span>`;
}

/** Names in a sentence: 'Ann', 'Ann and Bob', 'Ann, Bob and you'. */
function nameList(names) {
  if (names.length <= 1) return names.join('');
  return t('list.and', { items: names.slice(0, -1).join(t('list.separator')), last: names.at(-1) });
}

/** Who the next deal waits for ('you' in the sentence for this player), and when it comes
 * anyway. */
function NextHandLine({ nextHand, name, me }) {
  const [, tick] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => tick((x) => x + 1), 1000);
    return () => clearInterval(timer);
  }, [nextHand.until]);
  const left = Math.max(0, Math.ceil((nextHand.until - Date.now()) / 1000));
  return html`<p class="next-hand" role="status" data-next-hand>
    ${nextHand.waiting.length
      ? t('summary.waiting', { who: nameList(nextHand.waiting.map((s) => (s === me ? t('summary.you') : name(s)))), n: left })
      : t('summary.dealing')}
  </p>`;
}

export function Summary({ state, me, token, tableId, name, onClose, onReady, toasts }) {
  const summary = state.summary;
  const over = state.gameOver;
  const seats = state.seats.map((s) => s.seat);
  const results = state.handResults;
  const totals = (over && over.totals) || summary.totals || (results.at(-1) && results.at(-1).totals) || {};
  const [busy, setBusy] = useState(false);
  const targetMatch = /target=(\d+)/.exec((state.table && state.table.rules) || '');
  const target = targetMatch ? Number(targetMatch[1]) : 500;

  const how =
    summary.ended_by === 'out' && summary.out
      ? summary.out === me && me
        ? t('summary.out.you')
        : t('summary.out', { who: name(summary.out) })
      : summary.capped
        ? t('summary.capped')
        : t('summary.stock');

  const rematch = async () => {
    if (!token) return;
    setBusy(true);
    try {
      const reply = await api.rematch(tableId, token);
      const id = reply.table.table_id;
      store.saveSeat(id, { token: reply.token, seat: reply.seat, code: reply.table.invite_code, name: store.getName() });
      navigate(`/?table=${encodeURIComponent(id)}`);
    } catch (e) {
      toasts.show(e.message, 'error');
    } finally {
      setBusy(false);
    }
  };

  const title = over
    ? over.winner
      ? over.winner === me && me
        ? t('summary.winner.you')
        : t('summary.winner', { who: name(over.winner) })
      : t('summary.game.over')
    : t('summary.title', { n: summary.hand_number });

  return html`<${Modal} title=${title} onClose=${onClose} className=${cls('summary', over && 'game-over')}>
    <div data-summary>
      ${over && html`<p class="winner-line">${over.winner === me ? t('summary.you.won') : t('summary.hand.of', { n: summary.hand_number })}</p>`}
      ${over && state.table && state.table.rated && html`<${RatingChanges} tableId=${tableId} name=${name} />`}
      <p>${how}</p>
      <table class="scores">
        <caption class="visually-hidden">${t('summary.caption', { n: summary.hand_number })}</caption>
        <thead>
          <tr>
            <th scope="col">${t('summary.player')}</th>
            <th scope="col">${t('summary.melded')}</th>
            <th scope="col">${t('summary.left')}</th>
            <th scope="col">${t('summary.score')}</th>
            <th scope="col">${t('summary.total')}</th>
          </tr>
        </thead>
        <tbody>
          ${seats.map(
            (s) => html`<tr key=${s} class=${cls(s === me && 'you', over && over.winner === s && 'winner')}>
              <th scope="row"><span class=${cls('seat-swatch', seatColorClass(s))} aria-hidden="true"></span>${name(s)}</th>
              <td>${summary.melded ? summary.melded[s] : '–'}</td>
              <td>
                ${summary.left ? (summary.left[s] ? -summary.left[s] : 0) : '–'}
                <${LeftCards} cards=${summary.left_cards && summary.left_cards[s]} />
              </td>
              <td>${summary.scores ? signed(summary.scores[s]) : '–'}</td>
              <td><strong>${totals[s] ?? '–'}</strong></td>
            </tr>`,
          )}
        </tbody>
      </table>

      ${results.length > 1 &&
      html`<details class="by-hand" open=${!!over}>
        <summary>${t('summary.by.hand')}</summary>
        <table class="scores compact">
          <thead>
            <tr>
              <th scope="col">${t('summary.hand')}</th>
              ${seats.map((s) => html`<th key=${s} scope="col">${name(s)}</th>`)}
            </tr>
          </thead>
          <tbody>
            ${results.map(
              (r, i) => html`<tr key=${i}>
                <th scope="row">${i + 1}</th>
                ${seats.map((s) => html`<td key=${s}>${signed(r.scores[s])}</td>`)}
              </tr>`,
            )}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">${t('summary.total')}</th>
              ${seats.map((s) => html`<td key=${s}><strong>${totals[s] ?? '–'}</strong></td>`)}
            </tr>
          </tfoot>
        </table>
      </details>`}

      ${over && html`<${TotalsChart} seats=${seats} results=${results} name=${name} target=${target} />`}

      ${!over && !summary.nextHandStarted && state.nextHand && html`<${NextHandLine} nextHand=${state.nextHand} name=${name} me=${me} />`}

      <div class="dialog-actions">
        ${over &&
        html`<a class="button" href=${api.recordUrl(tableId)} download=${`rummy500-${tableId}.r500`} data-action="record">
          ${t('summary.record')}
        </a>`}
        ${over &&
        html`<button onClick=${() => navigate(`/?review=${encodeURIComponent(tableId)}${me ? '' : `&seat=${encodeURIComponent(over.winner || seats[0])}`}`)} data-action="review">
          ${t('summary.review')}
        </button>`}
        ${over && token &&
        html`<button class="primary" disabled=${busy} onClick=${rematch} data-action="rematch">
          ${state.rematch ? t('summary.rematch.join') : t('summary.rematch')}
        </button>`}
        ${over && html`<button onClick=${() => navigate('/')}>${t('action.lobby')}</button>`}
        ${!over &&
        html`<button class="primary" onClick=${summary.nextHandStarted ? onClose : onReady} disabled=${!!summary.ready} data-action="play-on">
          ${summary.nextHandStarted ? t('summary.next.started') : summary.ready ? t('summary.ready') : t('summary.play.on')}
        </button>`}
        ${over && html`<button onClick=${onClose}>${t('action.close')}</button>`}
      </div>
    </div>
  </${Modal}>`;
}
