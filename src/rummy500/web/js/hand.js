// The player's hand: cards to select (click, Space or Enter), move (drag, Shift + arrows) and
// drop on the pile, a meld or the melds area. The order is the player's own and survives a reload.
import { html, cls, useState, useRef, useLayoutEffect } from './lib.js';
import { t } from './i18n.js';
import { Card, cardName } from './cards.js';
import { useSortable } from './dnd.js';
import { reconcileHand, inSavedOrder } from './hand-order.js';
import * as store from './store.js';

/**
 * The hand's entries ({ id, code }) for the cards `codes`, in the player's order; returns
 * [entries, setEntries (a new order, saved for this table), the ids of the cards just arrived].
 */
export function useHand(tableId, codes, sortMode) {
  const ref = useRef(null);
  const [, rerender] = useState(0);
  if (ref.current === null) {
    // the order this browser last had at this table (a reload keeps it)
    const saved = store.handOrder(tableId);
    const first = saved ? inSavedOrder(codes, saved) : codes;
    ref.current = { key: null, entries: [], uid: { n: 0 }, added: new Set(), sortMode };
    const r = reconcileHand([], first, saved ? 'custom' : sortMode, ref.current.uid);
    ref.current.entries = r.entries;
    ref.current.key = codes.join(',');
  }
  const h = ref.current;
  const key = codes.join(',');
  if (h.key !== key || h.sortMode !== sortMode) {
    const r = reconcileHand(h.entries, codes, sortMode, h.uid);
    h.added = h.key !== key ? r.added : new Set();
    h.entries = r.entries;
    h.key = key;
    h.sortMode = sortMode;
  }
  const setEntries = (entries) => {
    h.entries = entries;
    h.added = new Set();
    store.saveHandOrder(tableId, entries.map((e) => e.code));
    rerender((x) => x + 1);
  };
  return [h.entries, setEntries, h.added];
}

/**
 * `selected`: the ids selected; `arrived`: the ids just drawn or taken; `mustUse`: the card the
 * player must meld this turn; `drag`: { animationMs(), onStart(entry), onEnd(), onDrop(entry,
 * target) } for dragging a card out of the hand.
 */
export function Hand({ entries, selected, arrived, mustUse, floating, onToggle, onMove, drag }) {
  const handRef = useRef(null);
  const [focusIndex, setFocusIndex] = useState(0);
  useSortable(handRef, {
    disabled: false,
    animationMs: drag.animationMs,
    onStart: (index) => drag.onStart(entries[index] || null),
    onCancel: drag.onEnd,
    onReorder: (from, to) => {
      drag.onEnd();
      onMove(from, to);
    },
    onDrop: (index, target) => {
      drag.onEnd();
      if (entries[index]) drag.onDrop(entries[index], target);
    },
  });

  const focusCard = (i) => {
    const n = Math.max(0, Math.min(entries.length - 1, i));
    setFocusIndex(n);
    const el = handRef.current && handRef.current.querySelectorAll('[data-card-id]')[n];
    if (el) el.focus();
  };
  // the card that had the focus left the hand (melded, laid off, discarded): the focus goes to
  // the card now in its place instead of being lost to the page
  const focusedId = useRef(null);
  useLayoutEffect(() => {
    const active = document.activeElement;
    if (focusedId.current === null || (active && active !== document.body)) return;
    if (entries.some((e) => e.id === focusedId.current)) return;
    focusedId.current = null;
    if (entries.length) focusCard(focusIndex);
  }, [entries]);
  const onKey = (event, index) => {
    const key = event.key;
    if (key === 'ArrowRight' || key === 'ArrowLeft') {
      const step = key === 'ArrowRight' ? 1 : -1;
      if (event.shiftKey) {
        onMove(index, index + step);
        setTimeout(() => focusCard(index + step), 0);
      } else focusCard(index + step);
      event.preventDefault();
      event.stopPropagation();
    } else if (key === 'Home' || key === 'End') {
      focusCard(key === 'Home' ? 0 : entries.length - 1);
      event.preventDefault();
    }
  };

  return html`<div
    class=${cls('hand', entries.length > 10 && 'crowded')}
    style=${{ '--hand-cards': Math.max(1, entries.length) }}
    ref=${handRef}
    role="group"
    data-hand
    aria-label=${t('hand.label', { n: entries.length })}
    onFocusIn=${(e) => {
      focusedId.current = (e.target.dataset && e.target.dataset.cardId) || null;
    }}
  >
    ${entries.length === 0 && html`<span class="muted">${floating ? t('hand.floating') : t('hand.empty')}</span>`}
    ${entries.map(
      (e, i) => html`<button
        key=${e.id}
        class=${cls('card-button', 'hand-card', selected.has(e.id) && 'selected', arrived.has(e.id) && 'arrived', mustUse === e.code && 'must-use')}
        data-card-id=${e.id}
        data-card=${e.code}
        aria-pressed=${selected.has(e.id) ? 'true' : 'false'}
        aria-label=${cardName(e.code)}
        tabindex=${i === Math.min(focusIndex, entries.length - 1) ? 0 : -1}
        onClick=${() => {
          setFocusIndex(i);
          onToggle(e.id);
        }}
        onKeyDown=${(ev) => onKey(ev, i)}
      >
        <${Card} text=${e.code} />
      </button>`,
    )}
  </div>`;
}
