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
 * lines not seen yet (chat-unread.js); `me`: the page's player, whose moves are said to them;
 * `chatAuthors`: the other people who wrote (table.js), whose lines `onMute(line)` hides or
 * shows again — signed in, a signed-in author is muted by account (at every table); otherwise
 * for this tab's session; `muteError`: why the last mute failed.
 */
export function SidePanel({ log, chat, panel, onPanel, name, me = null, canChat, onSay, unread = 0, chatAuthors = [], onMute, muteError = null }) {
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
          ${log.slice(-60).map((entry) => html`<li key=${entry.id}>${describeEvent(entry, name, me)}</li>`)}
        </ol>`
      : html`<div class="chat">
          <ol class="chat-lines" aria-live="polite" aria-label=${t('side.chat')}>
            ${chat.map(
              (line, i) => html`<li key=${i}><strong class=${line.seat ? seatColorClass(line.seat) : ''}>${line.name}:</strong> ${line.text}</li>`,
            )}
          </ol>
          ${muteError && html`<p class="error-box" role="alert" data-mute-error>${muteError}</p>`}
          ${onMute && chatAuthors.length > 0 &&
          html`<div class="row chat-hide" role="group" aria-label=${t('chat.hide.label')}>
            ${chatAuthors.map(
              (a) => html`<button type="button" class="ghost" key=${a.key} aria-pressed=${a.muted} data-hide-seat=${a.seat}
                data-mute-account=${a.line.account || undefined} onClick=${() => onMute(a.line)}>${t(
                  a.byAccount ? (a.muted ? 'chat.unmute' : 'chat.mute') : a.muted ? 'chat.show' : 'chat.hide',
                  { name: a.name },
                )}</button>`,
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
