// The player's buttons: draw, meld, lay off, discard (enabled only when the server's legal moves
// have one now), undo and hint (at a rated table: a note that it has neither), the hand's sort;
// and the Rummy! call bar while a call is open.
import { html, cls } from './lib.js';
import { t } from './i18n.js';
import { has } from './moves.js';
import { Countdown } from './countdown.js';

/**
 * `legal`: the legal moves now; `ready`: which actions the selection makes ready (highlighted):
 * { draw, meld, layoff, discard }; `actions`: the table's actions (useTableActions); `online`:
 * false while the connection is down (the hint waits for it, and says so); `rated`: a rated
 * table (`state.table.rated`), where the server refuses undo and hints: the note says so instead
 * of the two buttons.
 */
export function Toolbar({ legal, ready, canUndo, undoOffered, sortMode, actions, online = true, rated = false }) {
  return html`<div class="actions" role="toolbar" aria-label=${t('actions.label')}>
    <button onClick=${actions.draw} class=${cls(ready.draw && 'legal')} disabled=${!ready.draw} data-action="draw" aria-keyshortcuts="D">${t('action.draw')}</button>
    <button onClick=${() => actions.meld()} class=${cls(ready.meld && 'legal')} disabled=${!has(legal, 'meld')} data-action="meld" aria-keyshortcuts="M">${t('action.meld')}</button>
    <button onClick=${actions.layOffAnywhere} class=${cls(ready.layoff && 'legal')} disabled=${!has(legal, 'layoff')} data-action="layoff" aria-keyshortcuts="L">${t('action.layoff')}</button>
    <button onClick=${() => actions.discard()} class=${cls(ready.discard && 'legal')} disabled=${!has(legal, 'discard')} data-action="discard" aria-keyshortcuts="X">${t('action.discard')}</button>
    ${rated
      ? html`<span class="rated-note" data-rated-note>${t('rated.note')}</span>`
      : html`<button
            onClick=${actions.undo}
            aria-disabled=${canUndo ? 'false' : 'true'}
            class=${cls(!canUndo && 'unavailable')}
            data-action="undo"
            title=${undoOffered ? t('action.undo') : t('undo.unavailable')}
            aria-keyshortcuts="U"
          >${t('action.undo')}</button>
          <button
            onClick=${actions.showHint}
            data-action="hint"
            aria-keyshortcuts="H"
            aria-disabled=${online ? 'false' : 'true'}
            class=${cls(!online && 'unavailable')}
            title=${online ? null : t('hint.offline')}
          >${t('action.hint')}</button>`}
    <span class="sort" role="group" aria-label=${t('sort.label')}>
      <button aria-pressed=${sortMode === 'suit'} onClick=${() => actions.sortBy('suit')}>${t('sort.suit')}</button>
      <button aria-pressed=${sortMode === 'rank'} onClick=${() => actions.sortBy('rank')}>${t('sort.rank')}</button>
    </span>
  </div>`;
}

/** While this seat may call Rummy! on the discard: the call (with the seconds left) and a pass. */
export function CallBar({ until, actions }) {
  return html`<div class="call-bar" role="alert">
    <button class="rummy" onClick=${actions.callRummy} data-action="rummy">
      ${t('action.rummy')} <${Countdown} until=${until} label="call.seconds" />
    </button>
    <button onClick=${actions.pass} data-action="pass">${t('action.pass')}</button>
  </div>`;
}
