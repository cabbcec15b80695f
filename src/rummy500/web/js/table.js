// The table: your hand, the stock, the spread discard pile, the melds (who played which card),
// the other players, and every action by click, drag or key. The server judges every move; an
// illegal one comes back with the engine's reason, shown in words.
import { html, cls, useState, useEffect, useRef, useReducer, useCallback, useMemo } from './lib.js';
import { t } from './i18n.js';
import { CardFace, cardName, cardShort, cardList, sortCards } from './cards.js';
import {
  parseMove,
  movesOf,
  meldsFor,
  layoffsFor,
  layoffTargets,
  takeDepths,
  rummyDepths,
  canDiscard,
  has,
  meldAttempt,
  describeOption,
  describeMove,
  simpleHint,
  hintFor,
  refusalText,
} from './moves.js';
import { TableConnection } from './connection.js';
import { EMPTY, reduce, closeSummary, seatName } from './table-state.js';
import { useSortable } from './dnd.js';
import * as store from './store.js';
import { api } from './api.js';
import { Summary } from './summary.js';
import { useFollowNewest } from './follow.js';
import { ChoiceDialog, HelpDialog, Toasts, useToasts } from './dialogs.js';
import { navigate, Settings, animationMs } from './app-shell.js';

const SEAT_COLORS = 8;

function seatIndex(seat) {
  return Number(String(seat).slice(1)) - 1;
}

function seatColorClass(seat) {
  return `seat-color-${seatIndex(seat) % SEAT_COLORS}`;
}

// --- the hand's order: kept across updates, new cards at the right (or in sorted place) ------

function reconcileHand(prev, codes, sortMode, uid) {
  const pool = new Map();
  for (const c of codes) pool.set(c, (pool.get(c) || 0) + 1);
  const kept = [];
  for (const e of prev) {
    const n = pool.get(e.code) || 0;
    if (n > 0) {
      pool.set(e.code, n - 1);
      kept.push(e);
    }
  }
  const added = [];
  for (const c of codes) {
    const n = pool.get(c) || 0;
    if (n > 0) {
      pool.set(c, n - 1);
      added.push({ id: `c${++uid.n}`, code: c });
    }
  }
  let entries = [...kept, ...added];
  if (sortMode !== 'custom') entries = sortCards(entries, sortMode, (e) => e.code);
  return { entries, added: new Set(added.map((e) => e.id)) };
}

function useHand(tableId, codes, sortMode) {
  const ref = useRef(null);
  const [, rerender] = useState(0);
  if (ref.current === null) {
    // the order this browser last had at this table (a reload keeps it)
    const saved = store.handOrder(tableId);
    const first = saved
      ? [...codes].sort((a, b) => {
          const ia = saved.indexOf(a);
          const ib = saved.indexOf(b);
          return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib);
        })
      : codes;
    ref.current = { key: null, entries: [], uid: { n: 0 }, added: new Set(), first: true, sortMode };
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

// --- small pieces ------------------------------------------------------------------------------

function Card({ text, back, className, ...rest }) {
  return html`<span class=${cls('card', className)} ...${rest}><${CardFace} text=${text} back=${back} /></span>`;
}

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

function Countdown({ until, label }) {
  const [, tick] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => tick((x) => x + 1), 250);
    return () => clearInterval(timer);
  }, [until]);
  const left = Math.max(0, Math.ceil((until - Date.now()) / 1000));
  return html`<span class="countdown" aria-label=${label ? t(label, { n: left }) : undefined}>${left}</span>`;
}

function SeatPanel({ state, seat, info, isTurn, you }) {
  const view = state.view;
  const size = view ? view.hand_sizes[seat] : 0;
  const total = view ? view.totals[seat] : 0;
  const points = view ? view.points[seat] : 0;
  const known = view && view.known_cards ? view.known_cards[seat] || [] : [];
  const name = (info && info.name) || seat;
  const kind = info && info.kind === 'bot' ? t('seat.computer', { level: t(`level.${info.level || 'easy'}`) }) : null;
  const away = info && info.kind === 'human' && info.taken && !info.connected;
  const botPlays = info && info.kind === 'human' && info.bot_playing;
  const label = view ? t('seat.label', { name, n: size, total, points }) : name;
  return html`<li
    class=${cls('seat', seatColorClass(seat), isTurn && 'turn', you && 'you')}
    aria-current=${isTurn ? 'true' : undefined}
    aria-label=${label + (isTurn ? ` — ${t('seat.turn')}` : '')}
    data-seat=${seat}
  >
    <div class="seat-head">
      <span class="seat-swatch" aria-hidden="true"></span>
      <strong class="seat-name">${name}</strong>
      ${you && html`<span class="tag">${t('seat.you')}</span>`}
      ${kind && html`<span class="tag">${kind}</span>`}
      ${away && html`<span class="tag warn">${botPlays ? t('seat.away.bot') : t('seat.away')}</span>`}
      ${info && info.kind === 'human' && !info.taken && html`<span class="tag">${t('seat.free')}</span>`}
    </div>
    ${view && html`<div class="seat-body" aria-hidden="true">
      <span class="mini-hand">${Array.from({ length: Math.min(size, 13) }, (_, i) => html`<span key=${i} class="mini-back"></span>`)}</span>
      <span class="seat-count">${t('seat.cards', { n: size })}</span>
    </div>
    <div class="seat-score" aria-hidden="true">
      <span>${t('seat.total', { total })}</span>
      <span class="muted">${t('seat.points', { points })}</span>
      ${isTurn && html`<span class="turn-mark">${t('seat.turn')}</span>`}
    </div>`}
    ${known.length > 0 &&
    html`<div class="known" aria-label=${t('seat.known', { cards: cardList(known) })}>
      ${t('seat.known.short')} ${known.map(cardShort).join(' ')}
    </div>`}
  </li>`;
}

// --- the table screen ------------------------------------------------------------------------

export function TableScreen({ tableId, watch, settings, onSettings }) {
  const held = watch ? null : store.seatAt(tableId);
  const token = held ? held.token : null;
  const [state, dispatch] = useReducer((s, a) => (a.type === '_close' ? closeSummary(s) : reduce(s, a)), EMPTY);
  const [status, setStatus] = useState({ status: 'connecting' });
  const [selected, setSelected] = useState(new Set());
  // a saved order (this browser's last at this table) is kept until the player sorts again
  const [sortMode, setSortMode] = useState(() => (store.handOrder(tableId) ? 'custom' : 'suit'));
  const [dialog, setDialog] = useState(null);
  const [help, setHelp] = useState(false);
  const [hint, setHint] = useState(null);
  const [panel, setPanel] = useState('log');
  const logList = useFollowNewest([state.log, panel]);
  const [chatText, setChatText] = useState('');
  const [dragging, setDragging] = useState(null);
  const toasts = useToasts();
  const conn = useRef(null);
  const stateRef = useRef(state);
  stateRef.current = state;

  // connect (and reconnect) for the life of the screen
  useEffect(() => {
    const c = new TableConnection({
      path: `/ws/tables/${encodeURIComponent(tableId)}`,
      token,
      onMessage: (message) => {
        dispatch(message);
        if (message.type === 'error') {
          if (message.code === 'seat_left') store.forgetSeat(tableId);
          const text = message.code === 'illegal_move' ? refusalText(message, (seat) => seatName(stateRef.current, seat)) : message.message;
          toasts.show(text, message.code === 'queued' ? 'info' : 'error', message.code);
        } else if (message.type === 'queued' && /^P\d+ (draw|take|end)/.test(message.move || '')) {
          toasts.show(t('info.queued'), 'info');
        }
      },
      onStatus: (s, detail) => setStatus({ status: s, detail }),
    });
    conn.current = c;
    c.connect();
    return () => c.close();
  }, [tableId, token]);

  const view = state.view;
  const me = state.you && state.you.seat;
  const spectator = !me;
  // a spectator's stock, pile and melds are pictures at full contrast, not buttons it cannot press
  const Pressable = spectator ? 'div' : 'button';
  const pressable = (onClick) => (spectator ? { role: 'img' } : { onClick });
  const legal = state.legal;
  const phase = view ? view.phase : null;
  const myTurn = !!(view && me && view.turn === me && (phase === 'draw' || phase === 'play'));
  useTurnAlert(myTurn, settings.sound);
  // a Rummy! call that lost to another player's: say who got the card
  useEffect(() => {
    if (state.lostCall) toasts.show(t('call.lost.you', { who: seatName(state, state.lostCall.seat) }), 'info', 'call_lost');
  }, [state.lostCall]);
  const values = useMemo(() => (/values=5-10-15/.test((state.table && state.table.rules) || '') ? '5-10-15' : 'standard'), [state.table]);

  const [entries, setEntries, arrived] = useHand(tableId, (view && view.hand) || [], sortMode);
  const selection = entries.filter((e) => selected.has(e.id));
  const selectedCodes = selection.map((e) => e.code);

  // forget a selection whose cards left the hand; a new hand starts with none
  useEffect(() => {
    const ids = new Set(entries.map((e) => e.id));
    if ([...selected].some((id) => !ids.has(id))) setSelected(new Set([...selected].filter((id) => ids.has(id))));
  }, [entries]);
  useEffect(() => setHint(null), [state.version]);
  const features = new Set((state.table && state.table.features) || []);
  useEffect(() => {
    if (state.serverHint && state.serverHint.version === state.version) {
      applyHint(hintFor(state.serverHint.move, view ? view.discard_pile : []));
    }
  }, [state.serverHint]);

  // statistics of this browser's player
  useEffect(() => {
    if (!me || !state.summary || !state.summary.scores) return;
    store.countHand(`${tableId}:${state.summary.hand_number}`, state.summary.scores[me] || 0);
  }, [state.summary && state.summary.hand_number, me]);
  useEffect(() => {
    if (!me || !state.gameOver) return;
    store.countGame(`${tableId}:game`, state.gameOver.winner === me);
  }, [state.gameOver, me]);

  // a hook for tests and for curious people: what this page knows
  useEffect(() => {
    window.rummy500 = {
      snapshot: () => ({
        version: stateRef.current.version,
        seat: stateRef.current.you && stateRef.current.you.seat,
        view: stateRef.current.view,
        legal: stateRef.current.legal,
        call: stateRef.current.call,
        connection: conn.current ? conn.current.status : null,
      }),
      drop: (ms) => conn.current && conn.current.drop(ms),
    };
  });

  const name = useCallback((seat) => (seat === me ? t('you') : seatName(stateRef.current, seat)), [me]);
  // the short mark under each card of a meld: who played it (a person's initials, a bot's seat)
  const badge = (seat) => {
    const info = (stateRef.current.seats || []).find((s) => s.seat === seat);
    return info && info.name ? initials(info.name) : seat;
  };

  const act = (move) => {
    setHint(null);
    const ref = conn.current && conn.current.move(move);
    if (!ref) toasts.show(t('error.offline'), 'error');
  };

  const choose = (title, moves, pile) => {
    setDialog({
      title,
      options: moves.map((m) => ({ move: m.text, label: describeOption(m, pile) })),
    });
  };

  const clearSelection = () => setSelected(new Set());

  // --- actions ---------------------------------------------------------------------------------

  const draw = () => {
    if (!me) return;
    act(`${me} draw`);
  };

  const takeDownTo = (depth) => {
    if (!me) return;
    if (phase === 'call' && state.call) {
      act(`${me} rummy ${depth}`);
      return;
    }
    if (phase === 'play' && myTurn && selection.length === 1 && depth === 1) {
      discard();
      return;
    }
    act(`${me} take ${depth}`);
  };

  const meld = (codes = selectedCodes) => {
    if (!me) return;
    if (!codes.length) {
      toasts.show(t('error.select.meld'), 'error');
      return;
    }
    const options = meldsFor(legal, codes);
    if (options.length === 1) act(options[0].text);
    else if (options.length > 1) choose(t('dialog.meld'), options);
    else act(meldAttempt(me, codes));
  };

  const layOff = (number, code = selectedCodes[0]) => {
    if (!me) return;
    if (selectedCodes.length > 1 && code === selectedCodes[0]) {
      toasts.show(t('error.select.one.layoff'), 'error');
      return;
    }
    if (!code) {
      toasts.show(t('error.select.layoff'), 'error');
      return;
    }
    const options = layoffsFor(legal, code, number);
    if (options.length === 1) act(options[0].text);
    else if (options.length > 1) choose(t('dialog.layoff'), options);
    else act(`${me} layoff ${code} ${number}`);
  };

  const layOffAnywhere = () => {
    const code = selectedCodes[0];
    if (selectedCodes.length !== 1) {
      toasts.show(t('error.select.one.layoff'), 'error');
      return;
    }
    const options = layoffsFor(legal, code);
    if (options.length === 1) act(options[0].text);
    else if (options.length > 1) choose(t('dialog.layoff'), options);
    else if (view && view.melds.length) act(`${me} layoff ${code} ${view.melds[0].number}`);
    else toasts.show(t('error.no.melds'), 'error');
  };

  const discard = (code = selectedCodes.length === 1 ? selectedCodes[0] : null) => {
    if (!me) return;
    if (!code) {
      toasts.show(t('error.select.discard'), 'error');
      return;
    }
    act(`${me} discard ${code}`);
  };

  const callRummy = () => {
    if (!me) return;
    const options = movesOf(legal, 'rummy');
    if (options.length === 1) act(options[0].text);
    else if (options.length > 1) choose(t('dialog.rummy'), options, view ? view.discard_pile : []);
    else act(`${me} rummy 1`);
  };

  const pass = () => me && act(`${me} pass`);
  const end = () => me && act(`${me} end`);

  // a hint: the server's (its strongest computer player) when it offers them, else one from
  // the legal moves (docs/web-needs.md)
  const showHint = () => {
    if (features.has('hint') && legal.length && conn.current && conn.current.send({ type: 'hint' })) return;
    const h = simpleHint(legal, view, values);
    if (!h) {
      toasts.show(t('hint.none'), 'info');
      return;
    }
    applyHint(h);
  };

  const undo = () => {
    if (!features.has('undo')) toasts.show(t('undo.unavailable'), 'info');
    else if (!state.canUndo) toasts.show(t('undo.nothing'), 'info');
    else if (conn.current && !conn.current.send({ type: 'undo' })) toasts.show(t('error.offline'), 'error');
  };

  const applyHint = (h) => {
    setHint(h);
    if (h.cards) {
      const pool = [...h.cards];
      const ids = new Set();
      for (const e of entries) {
        const i = pool.indexOf(e.code);
        if (i >= 0) {
          ids.add(e.id);
          pool.splice(i, 1);
        }
      }
      setSelected(ids);
    }
  };

  const toggle = (id) => {
    const next = new Set(selected);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setSelected(next);
  };

  const sortBy = (mode) => {
    store.saveHandOrder(tableId, null);
    setSortMode(mode);
  };

  const moveCard = (from, to) => {
    if (to < 0 || to >= entries.length || from === to) return;
    const next = [...entries];
    const [card] = next.splice(from, 1);
    next.splice(to, 0, card);
    setSortMode('custom');
    setEntries(next);
  };

  // --- drag and drop -------------------------------------------------------------------------

  const handRef = useRef(null);
  const pileRef = useRef(null);
  usePileSpread(pileRef, view ? view.discard_pile.length : 0);
  useSortable(handRef, {
    disabled: spectator || !view,
    animationMs: () => animationMs(settings.speed, 150),
    onStart: (index) => setDragging(entries[index] ? entries[index].code : null),
    onCancel: () => setDragging(null),
    onReorder: (from, to) => {
      setDragging(null);
      moveCard(from, to);
    },
    onDrop: (index, target) => {
      setDragging(null);
      const entry = entries[index];
      if (!entry) return;
      const kind = target.dataset.drop;
      if (kind === 'pile') discard(entry.code);
      else if (kind === 'meld') layOff(Number(target.dataset.meld), entry.code);
      else if (kind === 'melds') {
        const codes = selected.has(entry.id) ? selectedCodes : [entry.code];
        meld(codes);
      }
    },
  });

  // --- keyboard ------------------------------------------------------------------------------

  const keys = useRef(null);
  keys.current = (event) => {
    const tag = event.target && event.target.tagName;
    if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || event.ctrlKey || event.metaKey || event.altKey) return;
    if (dialog || help || stateRef.current.summary) return; // a dialog has the keys (Escape closes it)
    const key = event.key;
    const lower = key.length === 1 ? key.toLowerCase() : key;
    const digit = /^[1-9]$/.test(key) ? Number(key) : null;
    let handled = true;
    if (digit !== null) {
      if (phase === 'play' && selection.length === 1) layOff(digit);
      else takeDownTo(digit);
    } else if (lower === 'd') draw();
    else if (lower === 't') takeDownTo(1);
    else if (lower === 'm') meld();
    else if (lower === 'l') layOffAnywhere();
    else if (lower === 'x') discard();
    else if (lower === 'r') callRummy();
    else if (lower === 'p') pass();
    else if (lower === 'e') end();
    else if (lower === 'h') showHint();
    else if (lower === 'u') undo();
    else if (lower === 's') sortBy(sortMode === 'suit' ? 'rank' : 'suit');
    else if (lower === 'c') {
      setPanel('chat');
      setTimeout(() => document.getElementById('chat-input') && document.getElementById('chat-input').focus(), 0);
    } else if (key === '?') setHelp(true);
    else if (key === 'Escape') {
      clearSelection();
      setHint(null);
    } else handled = false;
    if (handled) event.preventDefault();
  };
  useEffect(() => {
    const listener = (e) => keys.current(e);
    document.addEventListener('keydown', listener);
    return () => document.removeEventListener('keydown', listener);
  }, []);

  const onHandKey = (event, index) => {
    const key = event.key;
    if (key === 'ArrowRight' || key === 'ArrowLeft') {
      const step = key === 'ArrowRight' ? 1 : -1;
      if (event.shiftKey) {
        moveCard(index, index + step);
        setTimeout(() => focusCard(index + step), 0);
      } else focusCard(index + step);
      event.preventDefault();
      event.stopPropagation();
    } else if (key === 'Home' || key === 'End') {
      focusCard(key === 'Home' ? 0 : entries.length - 1);
      event.preventDefault();
    }
  };
  const [focusIndex, setFocusIndex] = useState(0);
  const focusCard = (i) => {
    const n = Math.max(0, Math.min(entries.length - 1, i));
    setFocusIndex(n);
    const el = handRef.current && handRef.current.querySelectorAll('[data-card-id]')[n];
    if (el) el.focus();
  };

  // --- what is legal now (for highlighting) --------------------------------------------------

  const takes = takeDepths(legal);
  const calls = rummyDepths(legal);
  const canDraw = has(legal, 'draw');
  const single = selectedCodes.length === 1 ? selectedCodes[0] : dragging;
  const meldTargets = single ? layoffTargets(legal, single) : new Set();
  const discardOk = single ? canDiscard(legal, single) : false;
  const meldOk = selectedCodes.length >= 3 && meldsFor(legal, selectedCodes).length > 0;
  const mustUse = view && view.must_use && myTurn ? view.must_use : null;
  const hintMove = hint ? parseMove(hint.move) : null;

  // --- the page --------------------------------------------------------------------------------

  if (status.status === 'closed' && !view) {
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

  const seats = state.seats || [];
  const players = seats.map((s) => s.seat);
  const others = me ? [...players.slice(seatIndex(me) + 1), ...players.slice(0, seatIndex(me))] : players;
  const infoOf = (seat) => seats.find((s) => s.seat === seat);
  const turnSeat = view ? (phase === 'call' ? view.to_act : view.turn) : null;
  const pile = view ? view.discard_pile : [];
  const lastEvent = state.lastEvent;
  const statusLine = describeStatus(state, { me, myTurn, phase, name, mustUse });
  const inviteLink = state.table ? `${location.origin}/?invite=${state.table.invite_code}` : '';

  return html`<div class=${cls('table-screen', `speed-${settings.speed}`, dragging && 'dragging')}>
    <header class="topbar">
      <a class="brand" href="/" onClick=${(e) => {
        e.preventDefault();
        navigate('/');
      }}>${t('app.name')}</a>
      <span class="table-code" title=${t('table.code.title')}>${state.table ? t('table.code', { code: state.table.invite_code }) : ''}</span>
      ${view && html`<span class="hand-number">${t('table.hand', { n: view.hand_number })}</span>`}
      ${state.table && html`<span class="table-target">${t('rules.target.short', { n: ((state.table.rules || '').match(/target=(\d+)/) || [0, 500])[1] })}</span>`}
      <${ConnectionBadge} status=${status.status} />
      <span class="spacer"></span>
      ${state.handResults.length > 0 &&
      html`<button class="ghost" onClick=${() => dispatch({ type: 'hand_over', ...state.handResults.at(-1) })}>${t('action.results')}</button>`}
      <button class="ghost" aria-label=${t('action.help')} onClick=${() => setHelp(true)}>?</button>
      <${Settings} settings=${settings} onSettings=${onSettings} compact=${true} />
      ${me &&
      html`<button class="ghost" onClick=${async () => {
        if (!window.confirm(t('confirm.leave'))) return;
        try {
          await api.leave(tableId, token);
        } catch (e) {
          // the seat may be gone already
        }
        store.forgetSeat(tableId);
        navigate('/');
      }}>${t('action.leave')}</button>`}
    </header>

    ${status.status !== 'open' &&
    html`<div class=${cls('ribbon', `ribbon-${status.status}`)} role="status" aria-live="polite">
      ${status.status === 'reconnecting'
        ? t('connection.ribbon.reconnecting')
        : status.status === 'closed'
          ? (status.detail && status.detail.reason) || t('connection.closed')
          : t('connection.connecting')}
    </div>`}

    ${spectator && state.table &&
    html`<div class="ribbon ribbon-watch" role="status">
      ${t('table.watching')}
      ${state.seats.some((s) => s.kind === 'human' && !s.taken) &&
      html` <button onClick=${() => navigate(`/?invite=${encodeURIComponent(state.table.invite_code)}`)}>${t('table.join')}</button>`}
    </div>`}

    <main class="table" id="main" aria-label=${t('table.label')}>
      <h1 class="visually-hidden">${t('table.heading')}</h1>
      <section class="others" aria-label=${t('table.players')}>
        <ul class="seat-list">
          ${others.map(
            (seat) => html`<${SeatPanel}
              key=${seat}
              state=${state}
              seat=${seat}
              info=${infoOf(seat)}
              isTurn=${turnSeat === seat && view && ['draw', 'play', 'call'].includes(phase)}
            />`,
          )}
        </ul>
      </section>

      ${!view
        ? html`<${WaitingRoom} state=${state} inviteLink=${inviteLink} toasts=${toasts} />`
        : html`
          <section class="center" aria-label=${t('table.center')}>
            <div class="stock-area">
              <${Pressable}
                class=${cls('stock', canDraw && 'legal', hintMove && hintMove.verb === 'draw' && 'hinted')}
                data-stock
                aria-label=${t('stock.label', { n: view.stock_size })}
                ...${pressable(draw)}
              >
                ${view.stock_size > 0 ? html`<${Card} back=${true} />` : html`<span class="card empty"></span>`}
                <span class="stock-count" aria-hidden="true">${view.stock_size}</span>
              <//>
              ${me && phase === 'draw' && myTurn && view.stock_size === 0 && has(legal, 'end') &&
              html`<button onClick=${end}>${t('action.end')}</button>`}
            </div>
            <div
              class=${cls('pile', discardOk && 'drop-legal')}
              ref=${pileRef}
              data-drop="pile"
              role="group"
              aria-label=${t('pile.label', { n: pile.length })}
            >
              ${pile.length === 0 && html`<span class="card empty" aria-hidden="true"></span>`}
              ${pile.map((card, i) => {
                const depth = pile.length - i;
                const legalHere = takes.has(depth) || calls.has(depth);
                const hinted = hintMove && (hintMove.verb === 'take' || hintMove.verb === 'rummy') && hintMove.number === depth;
                const label =
                  phase === 'play' && myTurn && selection.length === 1 && depth === 1
                    ? t('pile.discard.here', { card: cardName(selectedCodes[0]), top: cardName(card) })
                    : depth === 1
                      ? t('pile.card.top', { card: cardName(card) })
                      : t('pile.card', { card: cardName(card), n: depth });
                return html`<${Pressable}
                  key=${`${i}-${card}`}
                  class=${cls('card-button', 'pile-card', legalHere && 'legal', hinted && 'hinted', depth === 1 && 'top')}
                  data-depth=${depth}
                  data-card=${card}
                  aria-label=${label}
                  ...${pressable(() => takeDownTo(depth))}
                >
                  <${Card} text=${card} />
                <//>`;
              })}
            </div>
          </section>

          <section
            class=${cls('melds', dragging && 'drop-zone')}
            data-drop="melds"
            aria-label=${t('melds.label', { n: view.melds.length })}
          >
            ${view.melds.length === 0 && html`<p class="muted melds-empty">${t('melds.none')}</p>`}
            ${view.melds.map((m) => {
              const target = meldTargets.has(m.number);
              const hinted = hintMove && hintMove.verb === 'layoff' && hintMove.number === m.number;
              const owner = m.played_by[0];
              const parts = m.cards.map((c, i) => t('meld.card', { card: cardName(c), who: name(m.played_by[i]) }));
              return html`<${Pressable}
                key=${m.number}
                class=${cls('meld', target && 'legal drop-legal', hinted && 'hinted', seatColorClass(owner))}
                data-drop="meld"
                data-meld=${m.number}
                aria-label=${t(m.run ? 'meld.label.run' : 'meld.label.group', { n: m.number, cards: parts.join('; ') })}
                ...${pressable(() => layOff(m.number))}
              >
                <span class="meld-number" aria-hidden="true">${m.number}</span>
                <span class="meld-cards" aria-hidden="true">
                  ${m.cards.map(
                    (c, i) => html`<span key=${`${i}-${c}`} class=${cls('meld-card', seatColorClass(m.played_by[i]))} title=${t('meld.by', { who: name(m.played_by[i]) })}>
                      <${Card} text=${c} />
                      <span class="played-by">${badge(m.played_by[i])}</span>
                    </span>`,
                  )}
                </span>
              <//>`;
            })}
          </section>

          <section class=${cls('me', myTurn && 'my-turn')} aria-label=${t('me.label')}>
            <div class="status-line" aria-live="polite" data-status>
              ${statusLine}
              ${state.timer && html` <span class="timer">${t('timer.label', { who: name(state.timer.seat) })} <${Countdown} until=${state.timerUntil} /></span>`}
            </div>
            ${state.call && me &&
            html`<div class="call-bar" role="alert">
              <button class="rummy" onClick=${callRummy} data-action="rummy">
                ${t('action.rummy')} <${Countdown} until=${state.callUntil} label="call.seconds" />
              </button>
              <button onClick=${pass} data-action="pass">${t('action.pass')}</button>
            </div>`}
            ${hint && html`<div class="hint" role="status">${t('hint.prefix')} ${hint.text}</div>`}
            ${!spectator &&
            html`<div class="actions" role="toolbar" aria-label=${t('actions.label')}>
              <button onClick=${draw} class=${cls(canDraw && 'legal')} disabled=${!canDraw} data-action="draw" aria-keyshortcuts="D">${t('action.draw')}</button>
              <button onClick=${() => meld()} class=${cls(meldOk && 'legal')} disabled=${!has(legal, 'meld')} data-action="meld" aria-keyshortcuts="M">${t('action.meld')}</button>
              <button onClick=${layOffAnywhere} class=${cls(meldTargets.size > 0 && 'legal')} disabled=${!has(legal, 'layoff')} data-action="layoff" aria-keyshortcuts="L">${t('action.layoff')}</button>
              <button onClick=${() => discard()} class=${cls(discardOk && 'legal')} disabled=${!has(legal, 'discard')} data-action="discard" aria-keyshortcuts="X">${t('action.discard')}</button>
              <button
                onClick=${undo}
                aria-disabled=${state.canUndo ? 'false' : 'true'}
                class=${cls(!state.canUndo && 'unavailable')}
                data-action="undo"
                title=${features.has('undo') ? t('action.undo') : t('undo.unavailable')}
                aria-keyshortcuts="U"
              >${t('action.undo')}</button>
              <button onClick=${showHint} data-action="hint" aria-keyshortcuts="H">${t('action.hint')}</button>
              <span class="sort" role="group" aria-label=${t('sort.label')}>
                <button aria-pressed=${sortMode === 'suit'} onClick=${() => sortBy('suit')}>${t('sort.suit')}</button>
                <button aria-pressed=${sortMode === 'rank'} onClick=${() => sortBy('rank')}>${t('sort.rank')}</button>
              </span>
            </div>`}
            ${me &&
            html`<div class="my-score" aria-hidden="true">
              <span class=${cls('seat-swatch', seatColorClass(me))}></span>
              <strong>${name(me)}</strong>
              <span>${t('seat.total', { total: view.totals[me] })}</span>
              <span class="muted">${t('seat.points', { points: view.points[me] })}</span>
            </div>`}
            ${me &&
            html`<div
              class=${cls('hand', entries.length > 10 && 'crowded')}
              ref=${handRef}
              role="group"
              data-hand
              aria-label=${t('hand.label', { n: entries.length })}
            >
              ${entries.length === 0 && html`<span class="muted">${view.floating ? t('hand.floating') : t('hand.empty')}</span>`}
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
                    toggle(e.id);
                  }}
                  onKeyDown=${(ev) => onHandKey(ev, i)}
                >
                  <${Card} text=${e.code} />
                </button>`,
              )}
            </div>`}
          </section>
        `}

      <aside class="side" aria-label=${t('side.label')}>
        <div class="tabs" role="tablist">
          <button role="tab" aria-selected=${panel === 'log'} onClick=${() => setPanel('log')}>${t('side.log')}</button>
          <button role="tab" aria-selected=${panel === 'chat'} onClick=${() => setPanel('chat')}>
            ${t('side.chat')}${state.chat.length ? ` (${state.chat.length})` : ''}
          </button>
        </div>
        ${panel === 'log'
          ? html`<ol class="log" role="log" aria-label=${t('side.log')} ref=${logList.ref} onScroll=${logList.onScroll}>
              ${state.log.slice(-60).map(
                (entry) => html`<li key=${entry.id}>${describeEvent(entry, name)}</li>`,
              )}
            </ol>`
          : html`<div class="chat">
              <ol class="chat-lines" role="log" aria-label=${t('side.chat')}>
                ${state.chat.map(
                  (line, i) => html`<li key=${i}><strong class=${line.seat ? seatColorClass(line.seat) : ''}>${line.name}:</strong> ${line.text}</li>`,
                )}
              </ol>
              ${me &&
              html`<form
                class="chat-form"
                onSubmit=${(e) => {
                  e.preventDefault();
                  const text = chatText.trim();
                  if (!text) return;
                  if (conn.current && conn.current.send({ type: 'chat', text })) setChatText('');
                  else toasts.show(t('error.offline'), 'error');
                }}
              >
                <label class="visually-hidden" for="chat-input">${t('chat.label')}</label>
                <input
                  id="chat-input"
                  maxlength="300"
                  autocomplete="off"
                  value=${chatText}
                  onInput=${(e) => setChatText(e.target.value)}
                  placeholder=${t('chat.placeholder')}
                />
                <button type="submit">${t('chat.send')}</button>
              </form>`}
            </div>`}
      </aside>
      <p class="visually-hidden" aria-live="polite">${lastEvent ? describeEvent(lastEvent, name) : ''}</p>
    </main>

    ${state.summary &&
    html`<${Summary}
      state=${state}
      me=${me}
      token=${token}
      tableId=${tableId}
      name=${name}
      onClose=${() => dispatch({ type: '_close' })}
      toasts=${toasts}
    />`}
    ${dialog &&
    html`<${ChoiceDialog}
      title=${dialog.title}
      options=${dialog.options}
      onChoose=${(move) => {
        setDialog(null);
        act(move);
      }}
      onCancel=${() => setDialog(null)}
    />`}
    ${help && html`<${HelpDialog} table=${state.table} onClose=${() => setHelp(false)} />`}
    <${Toasts} toasts=${toasts} />
  </div>`;
}

/** Spread the discard pile over the width it has: each deep card shows as much as the row
 * allows (whole cards when they fit), never less than a strip a finger can hit on a touch screen;
 * the cards wrap to a second row only then. Sets the pile's --pile-overlap (CSSOM, not a style
 * attribute: the Content-Security-Policy allows no inline styles). */
function usePileSpread(ref, count) {
  useEffect(() => {
    const pile = ref.current;
    if (!pile) return undefined;
    const fit = () => {
      const card = pile.querySelector('.pile-card');
      if (!card || count < 2) {
        pile.style.removeProperty('--pile-overlap');
        return;
      }
      const width = card.getBoundingClientRect().width;
      const em = parseFloat(getComputedStyle(pile).fontSize) || 16;
      const room = pile.clientWidth - 0.8 * em - 2;
      const touch = window.matchMedia && window.matchMedia('(pointer: coarse)').matches;
      const least = width * (touch ? 0.62 : 0.45);
      const step = Math.max(least, Math.min(width + 6, (room - width) / (count - 1)));
      pile.style.setProperty('--pile-overlap', `${Math.round((width - step) * 10) / 10}px`);
    };
    fit();
    const watch = typeof ResizeObserver === 'function' ? new ResizeObserver(fit) : null;
    if (watch) watch.observe(pile);
    return () => watch && watch.disconnect();
  });
}

/** A short beep made on the spot (WebAudio: no sound file). */
function beep() {
  try {
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return;
    const audio = new Context();
    const tone = audio.createOscillator();
    const volume = audio.createGain();
    tone.frequency.value = 880;
    volume.gain.value = 0.08;
    tone.connect(volume);
    volume.connect(audio.destination);
    tone.onended = () => audio.close();
    tone.start();
    tone.stop(audio.currentTime + 0.15);
  } catch {
    // no sound then: the title still says it
  }
}

/** When it becomes your turn while the tab is in the background: the tab's title says so, and
 * a beep when the player asked for one. */
function useTurnAlert(myTurn, sound) {
  const soundRef = useRef(sound);
  soundRef.current = sound;
  useEffect(() => {
    if (!myTurn) return undefined;
    const show = () => {
      if (document.hidden) document.title = t('title.turn');
      else if (document.title === t('title.turn')) document.title = t('title.table');
    };
    if (document.hidden && soundRef.current) beep();
    show();
    document.addEventListener('visibilitychange', show);
    return () => {
      document.removeEventListener('visibilitychange', show);
      if (document.title === t('title.turn')) document.title = t('title.table');
    };
  }, [myTurn]);
}

function initials(name) {
  const words = String(name).trim().split(/\s+/);
  return (words.length > 1 ? words[0][0] + words[1][0] : String(name).slice(0, 2)).toUpperCase();
}

function describeEvent(entry, name) {
  const event = entry.event || {};
  if (event.kind === 'deal') return t('event.deal', { n: event.hand_number, who: name(event.dealer) });
  if (event.kind === 'move') {
    const text = describeMove(event.move, name, entry.pile || []);
    if (event.by === 'takeover') return `${text} ${t('event.by.takeover')}`;
    if (event.by === 'timeout') return t('event.timeout', { who: name(parseMove(event.move).seat) });
    return text;
  }
  if (event.kind === 'undo') return t('event.undo', { move: describeMove(event.move, name, entry.pile || []) });
  return '';
}

function describeStatus(state, { me, myTurn, phase, name, mustUse }) {
  const view = state.view;
  if (!view) return t('status.waiting');
  if (phase === 'game_over') return view.winner ? t('status.game.over', { who: name(view.winner) }) : t('status.hand.over');
  if (phase === 'hand_over') return t('status.hand.over');
  if (phase === 'call') {
    if (state.call) return t('status.call.you');
    const waiting = view.window.map(name).join(', ');
    if (state.queued) return t('status.call.queued', { who: waiting });
    return t('status.call', { who: waiting });
  }
  if (!me) return t('status.turn', { who: name(view.turn) });
  if (!myTurn) {
    const info = state.seats.find((s) => s.seat === view.turn);
    const bot = info && info.kind === 'human' && info.bot_playing;
    return t(bot ? 'status.turn.bot' : 'status.turn', { who: name(view.turn) });
  }
  if (phase === 'draw') return view.hand.length === 0 ? t('status.float') : t('status.draw');
  if (mustUse) return t('status.must.use', { card: cardShort(mustUse) });
  return t('status.play');
}

function WaitingRoom({ state, inviteLink, toasts }) {
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
            ? t('waiting.seat.bot', { seat: s.seat, level: t(`level.${s.level || 'easy'}`) })
            : s.taken
              ? t('waiting.seat.taken', { seat: s.seat, name: s.name || s.seat })
              : t('waiting.seat.free', { seat: s.seat })}
        </li>`,
      )}
    </ul>
  </section>`;
}

