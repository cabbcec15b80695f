// The bar above the table (the table's code, the hand, the target, the connection, results, help,
// settings, leave) and the ribbons under it (reconnecting; watching, with a free seat to join).
import { html, cls, useEffect } from './lib.js';
import { t } from './i18n.js';
import { api } from './api.js';
import * as store from './store.js';
import { navigate, Settings } from './app-shell.js';
import { LanguagePicker } from './language-picker.js';
import { CLOSE_PAIRING_CANCELLED } from './connection.js';

function ConnectionBadge({ status }) {
  const label = {
    connecting: t('connection.connecting'),
    open: t('connection.open'),
    reconnecting: t('connection.reconnecting'),
    closed: t('connection.closed'),
  }[status];
  return html`<span class=${cls('connection', `connection-${status}`)} role="status" data-connection=${status}>
    <span class="dot" aria-hidden="true"></span>${label}
  </span>`;
}

/** The table's target score, from its rules in notation (500 when they do not say). */
export function targetOf(table) {
  const match = /target=(\d+)/.exec((table && table.rules) || '');
  return match ? Number(match[1]) : 500;
}

export function TopBar({ state, status, me, token, tableId, settings, onSettings, onResults, onHelp }) {
  const view = state.view;
  const leave = async () => {
    if (!window.confirm(t('confirm.leave'))) return;
    try {
      await api.leave(tableId, token);
    } catch {
      // the seat may be gone already
    }
    store.forgetSeat(tableId);
    navigate('/');
  };
  return html`<header class="topbar">
    <a class="brand" href="/" onClick=${(e) => {
      e.preventDefault();
      navigate('/');
    }}>${t('app.name')}</a>
    <span class="table-code" title=${t('table.code.title')}>${state.table ? t('table.code', { code: state.table.invite_code }) : ''}</span>
    <span class="table-progress">
      ${view && html`<span class="hand-number">${t('table.hand', { n: view.hand_number })}</span>`}
      ${state.table && html`<span class="table-target">${t('rules.target.short', { n: targetOf(state.table) })}</span>`}
    </span>
    <${ConnectionBadge} status=${status.status} />
    <span class="spacer"></span>
    ${state.handResults.length > 0 && html`<button class="ghost" onClick=${onResults}>${t('action.results')}</button>`}
    <button class="ghost" aria-label=${me ? t('action.help') : t('action.help.watching')} onClick=${onHelp}>?</button>
    <${LanguagePicker} settings=${settings} onSettings=${onSettings} />
    <${Settings} settings=${settings} onSettings=${onSettings} compact=${true} />
    ${me && html`<button class="ghost" onClick=${leave}>${t('action.leave')}</button>`}
  </header>`;
}

/** Reconnecting, connecting, or refused for good (with the server's reason). */
export function ConnectionRibbon({ status }) {
  if (status.status === 'open') return null;
  return html`<div class=${cls('ribbon', `ribbon-${status.status}`)} role="status" aria-live="polite">
    ${status.status === 'reconnecting'
      ? t('connection.ribbon.reconnecting')
      : status.status === 'closed'
        ? (status.detail && status.detail.reason) || t('connection.closed')
        : t('connection.connecting')}
  </div>`;
}

/** A spectator is told so, with a button to sit down when a seat is free (in a game on, a seat
 * its player gave up: taking it over). */
export function WatchRibbon({ state }) {
  const free = state.seats.filter((s) => s.kind === 'human' && !s.taken);
  return html`<div class="ribbon ribbon-watch" role="status">
    ${t('table.watching')}
    ${free.length > 0 &&
    html` <button onClick=${() => navigate(`/?invite=${encodeURIComponent(state.table.invite_code)}`)}>
      ${free.some((s) => s.left) ? t('table.takeover') : t('table.join')}
    </button>`}
  </div>`;
}

/** The table is gone or refused us before we saw it: say why, and the way back. A paired table
 * cancelled because someone did not come takes its player straight back to the start page, still
 * waiting to be paired (the server kept their place in the queue), with the reason shown there. */
export function Unavailable({ status, token, tableId }) {
  const cancelled = token && status.detail && status.detail.code === CLOSE_PAIRING_CANCELLED;
  useEffect(() => {
    if (!cancelled) return;
    store.forgetSeat(tableId);
    store.resumePairing(token, status.detail.reason || '');
    navigate('/');
  }, [cancelled]);
  return html`<main class="screen table-screen" id="main">
    <div class="panel">
      <h1>${t('table.unavailable')}</h1>
      <p>${(status.detail && status.detail.reason) || t('connection.closed')}</p>
      <button class="primary" onClick=${() => {
        if (token) store.forgetSeat(tableId);
        navigate('/');
      }}>${t('action.lobby')}</button>
    </div>
  </main>`;
}
