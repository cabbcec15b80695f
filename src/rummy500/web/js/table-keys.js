// The table's keys (the ? help lists them): a letter per action, digits for a depth of the pile
// or a meld's number, Escape to clear. Keys typed into a field, or while a dialog is open, are
// not the table's.
import { useEffect, useRef } from './lib.js';

/** What a key does, from the actions and a few of the screen's own (help, chat, sort, clear). */
export function keyAction(event, { phase, oneSelected, actions, screen }) {
  const key = event.key;
  const lower = key.length === 1 ? key.toLowerCase() : key;
  if (/^[1-9]$/.test(key)) {
    const digit = Number(key);
    return () => (phase === 'play' && oneSelected ? actions.layOff(digit) : actions.takeDownTo(digit));
  }
  const byLetter = {
    d: actions.draw,
    t: () => actions.takeDownTo(1),
    m: () => actions.meld(),
    l: actions.layOffAnywhere,
    x: () => actions.discard(),
    r: actions.callRummy,
    p: actions.pass,
    e: actions.end,
    h: actions.showHint,
    u: actions.undo,
    s: screen.toggleSort,
    c: screen.openChat,
  };
  if (byLetter[lower]) return byLetter[lower];
  if (key === '?') return screen.openHelp;
  if (key === 'Escape') return screen.clear;
  return null;
}

/** Listen to the page's keys for the life of the screen; `handle(event)` may change each render. */
export function useTableKeys(handle) {
  const current = useRef(handle);
  current.current = handle;
  useEffect(() => {
    const listener = (event) => {
      const tag = event.target && event.target.tagName;
      if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || event.ctrlKey || event.metaKey || event.altKey) return;
      current.current(event);
    };
    document.addEventListener('keydown', listener);
    return () => document.removeEventListener('keydown', listener);
  }, []);
}
