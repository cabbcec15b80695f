// The Chat tab counts the lines the player has not seen: those that came while the Moves log was
// open, from the others (a player's own lines are read). What was said before the page opened
// the table counts as read.
import { html, useRef } from './lib.js';
import { t } from './i18n.js';

/** How many of `chat`'s lines came after `seenAt` (the server's time of the newest line seen)
 * from someone other than `me`. */
export function unreadCount(chat, seenAt, me) {
  return chat.filter((line) => line.at > seenAt && line.seat !== me).length;
}

/** The unread count for the Chat tab: `open` while the chat is shown, `ready` once the table's
 * state has come (its chat is the history, read). */
export function useUnreadChat(chat, open, me, ready) {
  const seen = useRef(null);
  const newest = chat.length ? chat[chat.length - 1].at : 0;
  if (ready && (seen.current === null || open)) seen.current = Math.max(seen.current ?? 0, newest);
  return seen.current === null ? 0 : unreadCount(chat, seen.current, me);
}

/** The tab's count: a badge to see, words for a screen reader. */
export function UnreadBadge({ n }) {
  if (!n) return null;
  return html`<span class="unread-badge" aria-hidden="true" data-unread=${n}>${n}</span>
    <span class="visually-hidden"> ${t('side.chat.unread', { n })}</span>`;
}
