// Before the first deal: who has sat down, the free seats, and the invitation to pass on.
import { html } from './lib.js';
import { t } from './i18n.js';
import { seatColorClass } from './seat-colors.js';
import { LevelBadge } from './names.js';

export function WaitingRoom({ state, inviteLink, toasts }) {
  const free = state.seats.filter((s) => s.kind === 'human' && !s.taken).length;
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(inviteLink);
      toasts.show(t('invite.copied'), 'info');
    } catch {
      toasts.show(t('invite.copy.failed'), 'error');
    }
  };
  return html`<section class="waiting panel" aria-label=${t('waiting.label')}>
    <h2>${t('waiting.title')}</h2>
    <p>${free ? t('waiting.free', { n: free }) : t('waiting.starting')}</p>
    ${state.table &&
    html`<div class="invite">
      <label for="invite-link">${t('invite.link')}</label>
      <input id="invite-link" readonly value=${inviteLink} onFocus=${(e) => e.target.select()} />
      <button onClick=${copy}>${t('invite.copy')}</button>
      <p>${t('invite.code', { code: state.table.invite_code })}</p>
    </div>`}
    <ul class="waiting-seats">
      ${state.seats.map(
        (s) => html`<li key=${s.seat} class=${seatColorClass(s.seat)}>
          <span class="seat-swatch" aria-hidden="true"></span>
          ${s.kind === 'bot'
            ? html`${t('waiting.seat.taken', { seat: s.seat, name: s.name || s.seat })} <${LevelBadge} level=${s.level} />`
            : s.taken
              ? t('waiting.seat.taken', { seat: s.seat, name: s.name || s.seat })
              : t('waiting.seat.free', { seat: s.seat })}
        </li>`,
      )}
    </ul>
  </section>`;
}
