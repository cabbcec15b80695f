// The side of the table: the Moves log (following the newest line) and the chat, in two tabs.
import { html, useState } from './lib.js';
import { t } from './i18n.js';
import { useFollowNewest } from './follow.js';
import { describeEvent } from './table-log.js';
import { seatColorClass } from './seat-colors.js';
import { UnreadBadge } from './chat-unread.js';

/**
 * `panel`: 'log' or 'chat' (the C key opens the chat too); `onSay(text)` sends a chat line and
 * is true when it went; `canChat`: a seated player (spectators read only); `unread`: the chat's
 * lines not seen yet (chat-unread.js); `chatSeats`: the other seats that wrote, whose lines
 * `onHide(seat)` hides or shows again (`hidden`: those hidden, in this browser only).
 */
export function SidePanel({ log, chat, panel, onPanel, name, canChat, onSay, unread = 0, chatSeats = [], hidden = new Set(), onHide }) {
  const logList = useFollowNewest([log, panel]);
  const [draft, setDraft] = useState(''); // kept while the player looks at the log
  return html`<aside class="side" aria-label=${t('side.label')}>
    <div class="tabs" role="tablist">
      <button role="tab" aria-selected=${panel === 'log'} onClick=${() => onPanel('log')}>${t('side.log')}</button>
      <button role="tab" aria-selected=${panel === 'chat'} onClick=${() => onPanel('chat')}>
        ${t('side.chat')}<${UnreadBadge} n=${unread} />
      </button>
    </div>
    ${panel === 'log'
      ? html`<ol class="log" aria-live="polite" aria-label=${t('side.log')} ref=${logList.ref} onScroll=${logList.onScroll}>
          ${log.slice(-60).map((entry) => html`<li key=${entry.id}>${describeEvent(entry, name)}</li>`)}
        </ol>`
      : html`<div class="chat">
          <ol class="chat-lines" aria-live="polite" aria-label=${t('side.chat')}>
            ${chat.map(
              (line, i) => html`<li key=${i}><strong class=${line.seat ? seatColorClass(line.seat) : ''}>${line.name}:</strong> ${line.text}</li>`,
            )}
          </ol>
          ${onHide && chatSeats.length > 0 &&
          html`<div class="row chat-hide" role="group" aria-label=${t('chat.hide.label')}>
            ${chatSeats.map(
              (seat) => html`<button type="button" class="ghost" key=${seat} aria-pressed=${hidden.has(seat)} data-hide-seat=${seat}
                onClick=${() => onHide(seat)}>${t(hidden.has(seat) ? 'chat.show' : 'chat.hide', { name: name(seat) })}</button>`,
            )}
          </div>`}
          ${canChat && html`<${ChatForm} text=${draft} setText=${setDraft} onSay=${onSay} />`}
        </div>`}
  </aside>`;
}

function ChatForm({ text, setText, onSay }) {
  const submit = (e) => {
    e.preventDefault();
    const line = text.trim();
    if (line && onSay(line)) setText('');
  };
  return html`<form class="chat-form" onSubmit=${submit}>
    <label class="visually-hidden" for="chat-input">${t('chat.label')}</label>
    <input
      id="chat-input"
      maxlength="300"
      autocomplete="off"
      value=${text}
      onInput=${(e) => setText(e.target.value)}
      placeholder=${t('chat.placeholder')}
    />
    <button type="submit">${t('chat.send')}</button>
  </form>`;
}
