// Dialogs (a choice among moves, the keyboard help) and the toasts that say what went wrong.
import { html, cls, useState, useEffect, useRef } from './lib.js';
import { t } from './i18n.js';
import { rulesDetails } from './lobby.js';
import { Guide } from './guide.js';

/** A modal dialog: focus moves into it, Escape closes it, focus goes back after. */
export function Modal({ title, onClose, children, className }) {
  const ref = useRef(null);
  useEffect(() => {
    const before = document.activeElement;
    const first = ref.current && ref.current.querySelector('button, [href], input, select, [tabindex="0"]');
    if (first) first.focus();
    const onKey = (e) => {
      if (e.key === 'Escape') {
        e.stopPropagation();
        onClose();
      }
      if (e.key === 'Tab' && ref.current) {
        const items = [...ref.current.querySelectorAll('button, [href], input, select')].filter((x) => !x.disabled);
        if (!items.length) return;
        const i = items.indexOf(document.activeElement);
        if (e.shiftKey && i <= 0) {
          items.at(-1).focus();
          e.preventDefault();
        } else if (!e.shiftKey && i === items.length - 1) {
          items[0].focus();
          e.preventDefault();
        }
      }
    };
    document.addEventListener('keydown', onKey, true);
    return () => {
      document.removeEventListener('keydown', onKey, true);
      if (before && before.focus) before.focus();
    };
  }, []);
  return html`<div class="backdrop" onClick=${(e) => e.target === e.currentTarget && onClose()}>
    <div class=${cls('dialog', className)} role="dialog" aria-modal="true" aria-labelledby="dialog-title" ref=${ref}>
      <h2 id="dialog-title">${title}</h2>
      ${children}
    </div>
  </div>`;
}

/** Several legal moves fit what the player did: which one? */
export function ChoiceDialog({ title, options, onChoose, onCancel }) {
  return html`<${Modal} title=${title} onClose=${onCancel} className="choices">
    <ul class="choice-list">
      ${options.map(
        (o) => html`<li key=${o.move}>
          <button class="choice" data-move=${o.move} onClick=${() => onChoose(o.move)}>${o.label}</button>
        </li>`,
      )}
    </ul>
    <div class="dialog-actions"><button onClick=${onCancel}>${t('action.cancel')}</button></div>
  </${Modal}>`;
}

const SHORTCUTS = [
  ['D', 'keys.draw'],
  ['T', 'keys.take'],
  ['1–9', 'keys.digits'],
  ['M', 'keys.meld'],
  ['L', 'keys.layoff'],
  ['X', 'keys.discard'],
  ['R', 'keys.rummy'],
  ['P', 'keys.pass'],
  ['E', 'keys.end'],
  ['H', 'keys.hint'],
  ['U', 'keys.undo'],
  ['S', 'keys.sort'],
  ['C', 'keys.chat'],
  ['← →', 'keys.arrows'],
  ['Shift + ← →', 'keys.move'],
  ['Space / Enter', 'keys.select'],
  ['Esc', 'keys.escape'],
  ['?', 'keys.help'],
];

/** The help at the table: how to play (for someone who never has), this table's rules, the keys. */
export function HelpDialog({ onClose, table, spectator = false }) {
  const [tab, setTab] = useState('guide');
  // a spectator plays no card: the keys and drags of a player are not theirs to be told
  const tabs = [
    ['guide', 'help.tab.guide'],
    ['rules', 'help.tab.rules'],
    ...(spectator ? [] : [['keys', 'help.tab.keys']]),
  ];
  return html`<${Modal} title=${t(tabs.find(([id]) => id === tab)[1])} onClose=${onClose} className="help-dialog">
    <div class="tabs help-tabs" role="tablist">
      ${tabs.map(
        ([id, label]) => html`<button key=${id} role="tab" aria-selected=${tab === id} data-help=${id} onClick=${() => setTab(id)}>${t(label)}</button>`,
      )}
    </div>
    ${tab === 'guide' && html`<${Guide} rules=${(table && table.rules) || ''} skip=${['table']} />`}
    ${tab === 'rules' &&
    html`<div class="table-rules" data-table-rules>
      <ul>
        ${rulesDetails(table && table.rules).map((line, i) => html`<li key=${i}>${line}</li>`)}
        ${table && table.call_seconds && html`<li>${t('table.rules.call', { n: table.call_seconds })}</li>`}
        ${table && table.turn_seconds && html`<li>${t('table.rules.turn', { n: table.turn_seconds })}</li>`}
      </ul>
    </div>`}
    ${tab === 'keys' &&
    html`<div>
      <p>${t('help.intro')}</p>
      <dl class="shortcuts">
        ${SHORTCUTS.map(
          ([key, what]) => html`<div key=${key}><dt><kbd>${key}</kbd></dt><dd>${t(what)}</dd></div>`,
        )}
      </dl>
      <p>${t('help.drag')}</p>
    </div>`}
    <div class="dialog-actions"><button onClick=${onClose}>${t('action.close')}</button></div>
  </${Modal}>`;
}

/** How to play in a dialog of its own (the start page's), for the rules chosen there. */
export function GuideDialog({ onClose, rules, preset }) {
  return html`<${Modal} title=${t('guide.title')} onClose=${onClose} className="help-dialog guide-dialog">
    <${Guide} rules=${rules} preset=${preset} />
    <div class="dialog-actions"><button onClick=${onClose} data-action="close-guide">${t('action.close')}</button></div>
  </${Modal}>`;
}

let toastIds = 0;

/** Messages that come and go: errors (the engine's reasons) and notes. */
export function useToasts() {
  const [items, setItems] = useState([]);
  const api = useRef(null);
  if (!api.current) {
    api.current = {
      items: [],
      show(text, kind = 'info', code = null) {
        const id = ++toastIds;
        setItems((list) => [...list.slice(-3), { id, text, kind, code }]);
        setTimeout(() => setItems((list) => list.filter((x) => x.id !== id)), kind === 'error' ? 7000 : 4000);
      },
      dismiss(id) {
        setItems((list) => list.filter((x) => x.id !== id));
      },
    };
  }
  api.current.items = items;
  return api.current;
}

export function Toasts({ toasts }) {
  return html`<div class="toasts">
    <div role="alert" aria-live="assertive" class="toast-stack">
      ${toasts.items
        .filter((x) => x.kind === 'error')
        .map(
          (x) => html`<div key=${x.id} class="toast error" data-error=${x.code || ''}>
            <span>${x.text}</span>
            <button class="ghost" aria-label=${t('action.dismiss')} onClick=${() => toasts.dismiss(x.id)}>×</button>
          </div>`,
        )}
    </div>
    <div role="status" aria-live="polite" class="toast-stack">
      ${toasts.items
        .filter((x) => x.kind !== 'error')
        .map(
          (x) => html`<div key=${x.id} class="toast info">
            <span>${x.text}</span>
            <button class="ghost" aria-label=${t('action.dismiss')} onClick=${() => toasts.dismiss(x.id)}>×</button>
          </div>`,
        )}
    </div>
  </div>`;
}
