// The start page: your name, a new table (seats, rules, target), joining by link or code, the
// open tables, watching a table, the tables you sit at, and your statistics.
import { html, cls, useState, useEffect, useRef } from './lib.js';
import { t } from './i18n.js';
import { api } from './api.js';
import * as store from './store.js';
import { navigate, reducedMotion, Settings } from './app-shell.js';
import { computerSeatText } from './names.js';
import { LanguagePicker } from './language-picker.js';
import { GuideDialog } from './dialogs.js';
import { AccountPanel } from './account.js';
import { PlayNow } from './play-now.js';
import {
  choiceOptions,
  defaultOf,
  levelHelp,
  levelName,
  levelNames,
  optionAbout,
  optionName,
  presetHelp,
  presetName,
  presetNames,
  presetOptions,
  ruleValues,
  valueHelp,
  valueName,
} from './rules.js';

const TURN_TIMES = [0, 30, 60, 120, 300];

/** The non-default parts of a table's rules line, in words. */
export function rulesSummary(rules) {
  const parts = [];
  for (const [name, value] of Object.entries(ruleValues(rules))) {
    if (name === 'target') parts.push(t('rules.target.short', { n: value }));
    else if (defaultOf(name) !== null && defaultOf(name) !== value) parts.push(`${optionName(name)}: ${valueName(name, value)}`);
  }
  return parts.join(' · ');
}

/** The preset a table's options and target are (the one that says most), or null. */
function presetOf(chosen, target) {
  const fits = presetNames().filter((p) => {
    const { target: presetTarget, ...wanted } = presetOptions(p);
    if (presetTarget !== undefined && String(presetTarget) !== target) return false;
    const names = Object.keys(wanted);
    return names.length === Object.keys(chosen).length && names.every((k) => chosen[k] === wanted[k]);
  });
  const says = (p) => Object.keys(presetOptions(p)).length;
  return fits.sort((a, b) => says(b) - says(a))[0] || null;
}

/** A table's rules, line by line in words: the target, the preset (or "your own mix") and
 * every option that differs from the standard, with what it means. */
export function rulesDetails(rules) {
  const chosen = {};
  let target = String(defaultOf('target'));
  for (const [name, value] of Object.entries(ruleValues(rules))) {
    if (name === 'target') target = value;
    else if (defaultOf(name) !== null && defaultOf(name) !== value) chosen[name] = value;
  }
  const names = Object.keys(chosen);
  const preset = presetOf(chosen, target);
  const lines = [
    t('table.rules.target', { n: target }),
    t('table.rules.preset', { preset: preset ? presetName(preset) : t('table.rules.custom') }),
  ];
  for (const name of names) lines.push(`${optionName(name)}: ${valueHelp(name, chosen[name])}`);
  if (!names.length) lines.push(t('table.rules.standard'));
  return lines;
}

/** A table's rules in a few words: what is not the standard, or the standard preset's name. */
export function rulesShort(rules) {
  return rulesSummary(rules) || presetName('standard');
}

function NameField({ name, setName, id = 'player-name' }) {
  return html`<label class="field" for=${id}>
    <span>${t('lobby.name')}</span>
    <input
      id=${id}
      value=${name}
      maxlength="64"
      autocomplete="nickname"
      required
      onInput=${(e) => {
        setName(e.target.value);
        store.setName(e.target.value);
      }}
    />
  </label>`;
}

function Field({ label, help, children, htmlFor }) {
  return html`<div class="field">
    <label for=${htmlFor}>${label}</label>
    ${children}
    ${help && html`<p class="help" id=${`${htmlFor}-help`}>${help}</p>`}
  </div>`;
}

/** A rules line of the options chosen on the form (a preset's own options are its). */
function chosenRules(options, target) {
  const parts = Object.entries(options)
    .filter(([, v]) => v)
    .map(([k, v]) => `${k}=${v}`);
  if (target) parts.push(`target=${target}`);
  return parts.join(' ');
}

function CreateTable({ name, setName, onError, onRules }) {
  const [seats, setSeats] = useState([
    { kind: 'human', you: true },
    { kind: 'bot', level: 'easy' },
  ]);
  const [preset, setPreset] = useState('standard');
  const [options, setOptions] = useState({});
  const [target, setTarget] = useState('');
  const [priv, setPriv] = useState(false);
  const [callSeconds, setCallSeconds] = useState('5');
  const [turnSeconds, setTurnSeconds] = useState(0);
  const [busy, setBusy] = useState(false);

  const setSeat = (i, change) => setSeats(seats.map((s, j) => (j === i ? { ...s, ...change } : s)));
  const add = (kind) => seats.length < 8 && setSeats([...seats, kind === 'bot' ? { kind, level: 'easy' } : { kind }]);
  const remove = (i) => seats.length > 2 && setSeats(seats.filter((_, j) => j !== i));
  const presetValue = (option) => presetOptions(preset)[option] ?? defaultOf(option);
  // how to play speaks of the rules chosen here
  useEffect(() => onRules({ preset, rules: chosenRules(options, target) }), [preset, options, target]);

  const submit = async (e) => {
    e.preventDefault();
    if (!name.trim()) {
      onError(t('lobby.name.needed'));
      return;
    }
    const chosen = Object.fromEntries(Object.entries(options).filter(([, v]) => v));
    const spec = {
      seats: seats.map((s) => (s.kind === 'bot' ? { kind: 'bot', level: s.level } : { kind: 'human' })),
      rules: { preset, options: chosen },
      private: priv,
      name: name.trim(),
      call_seconds: Number(callSeconds) || 5,
    };
    if (target) spec.target = Number(target);
    if (turnSeconds) spec.turn_seconds = turnSeconds;
    setBusy(true);
    try {
      const reply = await api.createTable(spec);
      const id = reply.table.table_id;
      store.saveSeat(id, { token: reply.token, seat: reply.seat, code: reply.table.invite_code, name: name.trim() });
      navigate(`/?table=${encodeURIComponent(id)}`);
    } catch (err) {
      onError(err.message);
    } finally {
      setBusy(false);
    }
  };

  return html`<form class="panel create" onSubmit=${submit} aria-labelledby="create-title">
    <h2 id="create-title">${t('create.title')}</h2>
    <${NameField} name=${name} setName=${setName} />
    <fieldset class="seats">
      <legend>${t('create.seats')}</legend>
      <ol class="seat-rows">
        ${seats.map(
          (s, i) => html`<li key=${i} class="seat-row" data-seat-row=${i + 1}>
            <span class="seat-label">${t('create.seat', { n: i + 1 })}</span>
            ${s.you
              ? html`<span class="you">${t('create.you')}</span>`
              : html`<select
                    aria-label=${t('create.seat.kind', { n: i + 1 })}
                    value=${s.kind}
                    data-seat-kind=${i + 1}
                    onChange=${(e) => setSeat(i, e.target.value === 'bot' ? { kind: 'bot', level: s.level || 'easy' } : { kind: 'human' })}
                  >
                    <option value="human">${t('create.friend')}</option>
                    <option value="bot">${t('create.computer')}</option>
                  </select>
                  ${s.kind === 'bot' &&
                  html`<select
                    aria-label=${t('create.seat.level', { n: i + 1 })}
                    value=${s.level}
                    data-seat-level=${i + 1}
                    onChange=${(e) => setSeat(i, { level: e.target.value })}
                  >
                    ${levelNames().map((l) => html`<option key=${l} value=${l}>${levelName(l)}</option>`)}
                  </select>`}
                  <button type="button" class="ghost" aria-label=${t('create.remove', { n: i + 1 })} disabled=${seats.length <= 2} onClick=${() => remove(i)}>×</button>`}
            ${s.kind === 'bot' && html`<p class="help">${levelHelp(s.level)}</p>`}
          </li>`,
        )}
      </ol>
      <div class="row">
        <button type="button" onClick=${() => add('human')} disabled=${seats.length >= 8} data-add="human">${t('create.add.friend')}</button>
        <button type="button" onClick=${() => add('bot')} disabled=${seats.length >= 8} data-add="bot">${t('create.add.computer')}</button>
      </div>
      <p class="help">${t('create.seats.help')}</p>
    </fieldset>

    <fieldset class="rules">
      <legend>${t('create.rules')}</legend>
      <${Field} label=${t('create.preset')} help=${presetHelp(preset)} htmlFor="preset">
        <select id="preset" value=${preset} onChange=${(e) => setPreset(e.target.value)} aria-describedby="preset-help">
          ${presetNames().map((p) => html`<option key=${p} value=${p}>${presetName(p)}</option>`)}
        </select>
      </${Field}>
      <${Field} label=${t('create.target')} help=${t('create.target.help', { n: presetValue('target') })} htmlFor="target">
        <input
          id="target"
          type="number"
          min="1"
          max="100000"
          inputmode="numeric"
          placeholder=${String(presetValue('target'))}
          value=${target}
          onInput=${(e) => setTarget(e.target.value)}
          aria-describedby="target-help"
        />
      </${Field}>
      <details class="options">
        <summary>${t('create.options')}</summary>
        ${choiceOptions().map(([option, { values }]) => {
          const value = options[option] || '';
          const shown = value || presetValue(option);
          return html`<${Field}
            key=${option}
            label=${optionName(option)}
            help=${`${optionAbout(option)} ${valueHelp(option, shown)}`}
            htmlFor=${`option-${option}`}
          >
            <select
              id=${`option-${option}`}
              value=${value}
              onChange=${(e) => setOptions({ ...options, [option]: e.target.value })}
              aria-describedby=${`option-${option}-help`}
            >
              <option value="">${t('create.option.preset', { value: valueName(option, presetValue(option)) })}</option>
              ${values.map((v) => html`<option key=${v} value=${v}>${valueName(option, v)}</option>`)}
            </select>
          </${Field}>`;
        })}
      </details>
    </fieldset>

    <details class="table-settings">
      <summary>${t('create.settings')}</summary>
      <${Field} label=${t('create.call')} help=${t('create.call.help')} htmlFor="call-seconds">
        <input id="call-seconds" type="number" min="1" max="60" value=${callSeconds} onInput=${(e) => setCallSeconds(e.target.value)} />
      </${Field}>
      <${Field} label=${t('create.turn')} help=${t('create.turn.help')} htmlFor="turn-seconds">
        <select id="turn-seconds" value=${turnSeconds} onChange=${(e) => setTurnSeconds(Number(e.target.value))}>
          ${TURN_TIMES.map((s) => html`<option key=${s} value=${s}>${s ? t('create.turn.seconds', { n: s }) : t('create.turn.none')}</option>`)}
        </select>
      </${Field}>
      <label class="check">
        <input type="checkbox" checked=${priv} onChange=${(e) => setPriv(e.target.checked)} />
        ${t('create.private')}
      </label>
      <p class="help">${t('create.private.help')}</p>
    </details>

    <button type="submit" class="primary big" disabled=${busy} data-action="create">${t('create.submit')}</button>
  </form>`;
}

function SeatsLine({ table }) {
  return html`<span class="seats-line">
    ${table.seats.map(
      (s, i) => html`<span key=${i} class=${cls('seat-chip', !s.taken && s.kind === 'human' && 'free')} data-left=${s.left ? 'true' : undefined}>
        ${s.kind === 'bot'
          ? computerSeatText(s)
          : s.taken
            ? s.name || s.seat
            : s.left
              ? t('lobby.seat.left')
              : t('lobby.seat.free')}
      </span>`,
    )}
  </span>`;
}

function JoinTable({ table, name, setName, onError, onCancel }) {
  const held = store.seatAt(table.table_id);
  const free = table.seats.filter((s) => s.kind === 'human' && !s.taken);
  // a game on: its free seats were given up, and joining takes one over from the computer
  const takeover = free.some((s) => s.left);
  const [seat, setSeat] = useState(free.length ? free[0].seat : '');
  const [busy, setBusy] = useState(false);
  // an invitation opens on its form: the keyboard starts where the eye does (the name, or the
  // way back to a seat held already), not at the top of the page
  const form = useRef(null);
  useEffect(() => {
    const first = form.current && form.current.querySelector('#join-name, [data-action="back"], [data-action="watch"]');
    if (first) first.focus();
  }, [table.table_id]);
  const join = async (e) => {
    e.preventDefault();
    if (!name.trim()) {
      onError(t('lobby.name.needed'));
      return;
    }
    setBusy(true);
    try {
      const reply = await api.join(table.table_id, name.trim(), free.length > 1 ? seat : null);
      store.saveSeat(table.table_id, { token: reply.token, seat: reply.seat, code: table.invite_code, name: name.trim() });
      navigate(`/?table=${encodeURIComponent(table.table_id)}`);
    } catch (err) {
      onError(err.message);
    } finally {
      setBusy(false);
    }
  };
  const watchOrCancel = html`<button type="button" data-action="watch" onClick=${() => navigate(`/?watch=${encodeURIComponent(table.table_id)}`)}>${t('lobby.watch')}</button>
    <button type="button" class="ghost" onClick=${onCancel}>${t('action.cancel')}</button>`;
  // what is shown is what is read: the form's fields, then its buttons in one row, first the
  // one that does what the page is for
  return html`<form class="panel join" ref=${form} onSubmit=${join} aria-labelledby="join-title">
    <h2 id="join-title">${t('join.title', { code: table.invite_code })}</h2>
    <p><${SeatsLine} table=${table} /></p>
    <p class="muted">${rulesShort(table.rules)}</p>
    ${held
      ? html`<p>${t('join.held', { seat: held.seat })}</p>
          <div class="row">
            <button type="button" class="primary big" data-action="back" onClick=${() => navigate(`/?table=${encodeURIComponent(table.table_id)}`)}>
              ${t('join.back')}
            </button>
            ${watchOrCancel}
          </div>`
      : free.length
        ? html`${takeover && html`<p class="takeover-note" data-takeover>${t('join.takeover.note')}</p>`}
            <${NameField} name=${name} setName=${setName} id="join-name" />
            ${free.length > 1 &&
            html`<fieldset>
              <legend>${t('join.seat')}</legend>
              ${free.map(
                (s) => html`<label key=${s.seat} class="check">
                  <input type="radio" name="seat" value=${s.seat} checked=${seat === s.seat} onChange=${() => setSeat(s.seat)} />
                  ${t('create.seat', { n: Number(s.seat.slice(1)) })}
                </label>`,
              )}
            </fieldset>`}
            <div class="row">
              <button type="submit" class="primary big" disabled=${busy} data-action="join">${takeover ? t('join.takeover') : t('join.submit')}</button>
              ${watchOrCancel}
            </div>`
        : html`<p>${t('join.full')}</p>
            <div class="row">${watchOrCancel}</div>`}
  </form>`;
}

function CodeBox({ onFound, onError }) {
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const find = async (watch) => {
    let value = code.trim();
    const match = /[?&]invite=([^&#\s]+)/.exec(value);
    if (match) value = decodeURIComponent(match[1]);
    if (!value) {
      onError(t('code.needed'));
      return;
    }
    setBusy(true);
    try {
      const table = await api.invite(value);
      if (watch) navigate(`/?watch=${encodeURIComponent(table.table_id)}`);
      else onFound(table);
    } catch (err) {
      onError(err.status === 404 ? t('code.unknown', { code: value }) : err.message);
    } finally {
      setBusy(false);
    }
  };
  return html`<form
    class="panel code"
    aria-labelledby="code-title"
    onSubmit=${(e) => {
      e.preventDefault();
      find(false);
    }}
  >
    <h2 id="code-title">${t('code.title')}</h2>
    <label class="field" for="invite-code">
      <span>${t('code.label')}</span>
      <input id="invite-code" value=${code} autocomplete="off" autocapitalize="characters" onInput=${(e) => setCode(e.target.value)} />
    </label>
    <div class="row">
      <button type="submit" class="primary" disabled=${busy}>${t('code.join')}</button>
      <button type="button" disabled=${busy} onClick=${() => find(true)}>${t('code.watch')}</button>
    </div>
  </form>`;
}

// Open tables shown a page at a time (the server pages the list: docs/protocol.md).
export const OPEN_PAGE = 20;

function OpenTables({ onJoin }) {
  const [tables, setTables] = useState(null);
  const [error, setError] = useState(null);
  // where each page seen so far starts (null: the first), this one last; and the next one's
  const [pages, setPages] = useState([null]);
  const [next, setNext] = useState(null);
  const cursor = pages[pages.length - 1];
  const shown = useRef(cursor); // the page being shown: an answer for another is dropped
  shown.current = cursor;
  const go = (to) => {
    setTables(null); // no rows of the page before under the new page's number
    setNext(null);
    setPages(to);
  };
  const load = async () => {
    try {
      const data = await api.openTables({ cursor, limit: OPEN_PAGE });
      if (shown.current !== cursor) return;
      if (cursor && !data.tables.length) {
        go([null]); // the tables of this page are gone: back to the first
        return;
      }
      setTables(data.tables);
      setNext(data.next_cursor || null);
      setError(null);
    } catch (err) {
      setError(err.message);
    }
  };
  useEffect(() => {
    load();
    const timer = setInterval(load, 10000);
    return () => clearInterval(timer);
  }, [cursor]);
  return html`<section class="panel open-tables" aria-labelledby="open-title">
    <div class="row spread">
      <h2 id="open-title">${t('open.title')}</h2>
      <button class="ghost" onClick=${load}>${t('open.refresh')}</button>
    </div>
    ${error && html`<p class="error">${error}</p>`}
    ${tables === null
      ? html`<p class="muted">${t('open.loading')}</p>`
      : tables.length === 0
        ? html`<p class="muted">${t('open.none')}</p>`
        : html`<ul class="table-list">
            ${tables.map(
              (table) => html`<li key=${table.table_id} data-table=${table.table_id}>
                <div>
                  <strong>${t('open.table', { code: table.invite_code })}</strong>
                  <span class="tag">${t(`status.table.${table.status}`)}</span>
                  <div><${SeatsLine} table=${table} /></div>
                  <div class="muted">${rulesShort(table.rules)}</div>
                </div>
                <div class="row">
                  <button onClick=${() => onJoin(table)}>${table.seats.some((s) => s.left) ? t('open.takeover') : t('open.join')}</button>
                  <button class="ghost" onClick=${() => navigate(`/?watch=${encodeURIComponent(table.table_id)}`)}>${t('lobby.watch')}</button>
                </div>
              </li>`,
            )}
          </ul>`}
    ${(pages.length > 1 || next) &&
    html`<nav class="row spread" aria-label=${t('open.pages')}>
      <button class="ghost" disabled=${pages.length <= 1} onClick=${() => go(pages.slice(0, -1))}>${t('open.previous')}</button>
      <span class="muted">${t('open.page', { n: pages.length })}</span>
      <button class="ghost" disabled=${!next} onClick=${() => go([...pages, next])}>${t('open.next')}</button>
    </nav>`}
    <p class="help">${t('open.help')}</p>
  </section>`;
}

function MyTables() {
  const held = Object.entries(store.seats());
  if (!held.length) return null;
  return html`<section class="panel my-tables" aria-labelledby="mine-title">
    <h2 id="mine-title">${t('mine.title')}</h2>
    <ul class="table-list">
      ${held
        .sort((a, b) => b[1].at - a[1].at)
        .slice(0, 8)
        .map(
          ([id, seat]) => html`<li key=${id}>
            <span>${t('mine.table', { code: seat.code || id, seat: seat.seat, name: seat.name || '' })}</span>
            <div class="row">
              <button onClick=${() => navigate(`/?table=${encodeURIComponent(id)}`)}>${t('mine.open')}</button>
              <button class="ghost" aria-label=${t('mine.forget.label', { code: seat.code || id })} onClick=${() => {
                store.forgetSeat(id);
                navigate('/');
              }}>${t('mine.forget')}</button>
            </div>
          </li>`,
        )}
    </ul>
  </section>`;
}

function Statistics() {
  const s = store.stats();
  const average = s.hands ? Math.round(s.points / s.hands) : 0;
  return html`<section class="panel stats" aria-labelledby="stats-title">
    <h2 id="stats-title">${t('stats.title')}</h2>
    <dl class="stat-grid">
      <div><dt>${t('stats.games')}</dt><dd data-stat="games">${s.games}</dd></div>
      <div><dt>${t('stats.wins')}</dt><dd data-stat="wins">${s.wins}</dd></div>
      <div><dt>${t('stats.hands')}</dt><dd data-stat="hands">${s.hands}</dd></div>
      <div><dt>${t('stats.average')}</dt><dd>${average}</dd></div>
      <div><dt>${t('stats.best')}</dt><dd>${s.best === null ? '–' : s.best}</dd></div>
    </dl>
    <p class="help">${t('stats.help')}</p>
  </section>`;
}

export function Lobby({ invite, settings, onSettings }) {
  const [name, setName] = useState(store.getName());
  const [joining, setJoining] = useState(null);
  const [error, setError] = useState(null);
  const [guide, setGuide] = useState(false);
  const [rules, setRules] = useState({ preset: 'standard', rules: '' });
  useEffect(() => {
    if (!invite) return;
    api
      .invite(invite)
      .then(setJoining)
      .catch((err) => setError(err.status === 404 ? t('code.unknown', { code: invite }) : err.message));
  }, [invite]);
  const onError = (message) => setError(message);
  return html`<div class="lobby">
    <header class="topbar">
      <span class="brand">${t('app.name')}</span>
      <span class="spacer"></span>
      <${LanguagePicker} settings=${settings} onSettings=${onSettings} />
      <${Settings} settings=${settings} onSettings=${onSettings} compact=${true} />
    </header>
    <main id="main" class="lobby-main">
      <h1>${t('lobby.title')}</h1>
      <p class="lede">${t('lobby.lede')}</p>
      <p class="guide-open">
        <span>${t('lobby.guide.new')}</span>
        <button type="button" class="primary" data-action="guide" onClick=${() => setGuide(true)}>${t('lobby.guide')}</button>
      </p>
      ${error &&
      html`<div class="error-box" role="alert">
        <span>${error}</span>
        <button class="ghost" aria-label=${t('action.dismiss')} onClick=${() => setError(null)}>×</button>
      </div>`}
      <div class="lobby-grid">
        ${joining &&
        html`<${JoinTable}
          table=${joining}
          name=${name}
          setName=${setName}
          onError=${onError}
          onCancel=${() => {
            setJoining(null);
            if (invite) navigate('/');
          }}
        />`}
        <${CreateTable} name=${name} setName=${setName} onError=${onError} onRules=${setRules} />
        <div class="lobby-column">
          <${PlayNow} />
          <${AccountPanel} />
          <${CodeBox} onFound=${setJoining} onError=${onError} />
          <${MyTables} />
          <${OpenTables} onJoin=${(table) => {
            setJoining(table);
            // the form opens at the top: glide there, unless motion is turned off
            window.scrollTo({ top: 0, behavior: settings.speed === 'none' || reducedMotion() ? 'auto' : 'smooth' });
          }} />
          <${Statistics} />
        </div>
      </div>
    </main>
    ${guide && html`<${GuideDialog} rules=${rules.rules} preset=${rules.preset} onClose=${() => setGuide(false)} />`}
  </div>`;
}
