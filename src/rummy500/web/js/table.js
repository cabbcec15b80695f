// The table: your hand, the stock, the spread discard pile, the melds (who played which card),
// the other players, and every action by click, drag or key. The server judges every move; an
// illegal one comes back with the engine's reason, shown in words. This module puts the pieces
// together; each piece is a module of its own.
import { html, cls, useState, useEffect, useCallback, useMemo } from './lib.js';
import { t } from './i18n.js';
import { layoffTargets, takeDepths, rummyDepths, canDiscard, has, meldsFor, hintFor } from './moves.js';
import { ruleValues } from './rules.js';
import { seatName, readyFor } from './table-state.js';
import * as store from './store.js';
import { Summary } from './summary.js';
import { ChoiceDialog, HelpDialog, Toasts, useToasts } from './dialogs.js';
import { animationMs } from './app-shell.js';
import { seatColorClass, initials, othersAround } from './seat-colors.js';
import { moveEntry } from './hand-order.js';
import { useTableConnection } from './use-table-connection.js';
import { tableActions } from './table-actions.js';
import { keyAction, useTableKeys } from './table-keys.js';
import { useTurnAlert } from './turn-alert.js';
import { describeStatus } from './table-status.js';
import { describeEvent, isLogged } from './table-log.js';
import { Countdown } from './countdown.js';
import { TopBar, ConnectionRibbon, WatchRibbon, Unavailable } from './top-bar.js';
import { OtherSeats } from './seat-panel.js';
import { WaitingRoom } from './waiting-room.js';
import { Stock, DiscardPile } from './pile.js';
import { MeldsArea } from './melds-area.js';
import { Toolbar, CallBar } from './toolbar.js';
import { useHand, Hand } from './hand.js';
import { SidePanel } from './side-panel.js';
import { useMutes, chatAuthor } from './account.js';
import { useLastMoveMarks, markMs } from './pace.js';
import { useUnreadChat } from './chat-unread.js';

export function TableScreen({ tableId, watch, settings, onSettings }) {
  const held = watch ? null : store.seatAt(tableId);
  const token = held ? held.token : null;
  const toasts = useToasts();
  const { state, dispatch, status, conn, stateRef, pacer } = useTableConnection(tableId, token, toasts, settings.computerSpeed);
  const mutes = useMutes(tableId); // whose chat is hidden: by account, or for this session
  const [selected, setSelected] = useState(new Set());
  // a saved order (this browser's last at this table) is kept until the player sorts again
  const [sortMode, setSortMode] = useState(() => (store.handOrder(tableId) ? 'custom' : 'suit'));
  const [dialog, setDialog] = useState(null);
  const [help, setHelp] = useState(false);
  const [hint, setHint] = useState(null);
  const [panel, setPanel] = useState('log');
  const [dragging, setDragging] = useState(null);

  const view = state.view;
  const me = state.you && state.you.seat;
  const spectator = !me;
  // while the connection is down nothing is offered: a move could not be sent (it waits for the
  // resync's legal moves)
  const online = status.status === 'open';
  const legal = online ? state.legalMoves : []; // the server's legal moves as data (moves.js)
  const phase = view ? view.phase : null;
  const myTurn = !!(view && me && view.turn === me && (phase === 'draw' || phase === 'play'));
  useTurnAlert(myTurn, settings.sound);
  useSeatEffects(state, me, tableId, toasts);
  useLastMoveMarks(state.lastEvent, view, me, markMs(settings.computerSpeed));
  const chat = state.chat.filter((line) => !mutes.muted(line)); // a muted player's lines: none
  const unread = useUnreadChat(chat, panel === 'chat', me, state.version >= 0);
  const values = useMemo(() => ruleValues(state.table && state.table.rules).values || 'standard', [state.table]);
  const features = new Set((state.table && state.table.features) || []);
  const rated = !!(state.table && state.table.rated); // no undo, no hints (the server refuses them)

  const [entries, setEntries, arrived] = useHand(tableId, (view && view.hand) || [], sortMode);
  const selection = entries.filter((e) => selected.has(e.id));
  const selectedCodes = selection.map((e) => e.code);

  // forget a selection whose cards left the hand; a new hand starts with none
  useEffect(() => {
    const ids = new Set(entries.map((e) => e.id));
    if ([...selected].some((id) => !ids.has(id))) setSelected(new Set([...selected].filter((id) => ids.has(id))));
  }, [entries]);
  useEffect(() => setHint(null), [state.version]);

  const name = useCallback((seat) => (seat === me ? t('you') : seatName(stateRef.current, seat)), [me]);
  // the short mark under each card of a meld: who played it (a person's initials, a bot's seat)
  const badge = (seat) => {
    const info = (stateRef.current.seats || []).find((s) => s.seat === seat);
    return info && info.name ? initials(info.name) : seat;
  };

  const actions = tableActions(
    { me, view, legal, phase, myTurn, selection: selectedCodes, call: state.call, canUndo: state.canUndo && online, features, values, entries, online, rated },
    {
      // the player acts on what they see: anything still waiting to be shown is shown first
      send: (message) => {
        pacer.flush();
        return !!(conn.current && conn.current.send(message));
      },
      move: (text) => {
        pacer.flush();
        return conn.current && conn.current.move(text);
      },
      toasts,
      choose: (title, options) => setDialog({ title, options }),
      setHint,
      select: setSelected,
    },
  );
  useEffect(() => {
    // the hint is one of this position's legal moves: its parts are there
    const move = state.serverHint && state.serverHint.version === state.version ? legal.find((m) => m.move === state.serverHint.move) : null;
    if (move) actions.applyHint(hintFor(move, view ? view.discard_pile : []));
  }, [state.serverHint]);

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
    const next = moveEntry(entries, from, to);
    if (!next) return;
    setSortMode('custom');
    setEntries(next);
  };
  const drag = {
    animationMs: () => animationMs(settings.speed, 150),
    onStart: (entry) => setDragging(entry ? entry.code : null),
    onEnd: () => setDragging(null),
    onDrop: (entry, target) => {
      const kind = target.dataset.drop;
      if (kind === 'pile') actions.discard(entry.code);
      else if (kind === 'meld') actions.layOff(Number(target.dataset.meld), entry.code);
      else if (kind === 'melds') actions.meld(selected.has(entry.id) ? selectedCodes : [entry.code]);
    },
  };

  useTableKeys((event) => {
    if (dialog || help || stateRef.current.summary) return; // a dialog has the keys (Escape closes it)
    const run = keyAction(event, {
      phase,
      oneSelected: selection.length === 1,
      actions,
      screen: {
        toggleSort: () => sortBy(sortMode === 'suit' ? 'rank' : 'suit'),
        openChat: () => {
          setPanel('chat');
          setTimeout(() => document.getElementById('chat-input') && document.getElementById('chat-input').focus(), 0);
        },
        openHelp: () => setHelp(true),
        clear: () => {
          setSelected(new Set());
          setHint(null);
        },
      },
    });
    if (!run) return;
    run();
    event.preventDefault();
  });

  // the player closes the hand summary: the server is told (the next deal waits for everyone's),
  // and with Play on the summary stays, saying who the table still waits for, until the deal
  const closeSummary = (stay) => {
    const hand = readyFor(state);
    if (hand !== null && !state.summary.ready && !(conn.current && conn.current.send({ type: 'ready', hand }))) {
      toasts.show(t('error.offline'), 'error');
      if (stay) return;
    }
    dispatch(stay && hand !== null ? { type: '_ready' } : { type: '_close' });
  };

  // --- what is legal now (for highlighting) --------------------------------------------------

  const single = selectedCodes.length === 1 ? selectedCodes[0] : dragging;
  const meldTargets = single ? layoffTargets(legal, single) : new Set();
  const discardOk = single ? canDiscard(legal, single) : false;
  const ready = {
    draw: has(legal, 'draw'),
    meld: selectedCodes.length >= 3 && meldsFor(legal, selectedCodes).length > 0,
    layoff: meldTargets.size > 0,
    discard: discardOk,
  };
  const mustUse = view && view.must_use && myTurn ? view.must_use : null;
  const hintMove = hint ? legal.find((m) => m.move === hint.move) || null : null;

  // --- the page --------------------------------------------------------------------------------

  if (status.status === 'closed' && !view) return html`<${Unavailable} status=${status} token=${token} tableId=${tableId} />`;

  const players = (state.seats || []).map((s) => s.seat);
  const turnSeat = view && ['draw', 'play', 'call'].includes(phase) ? (phase === 'call' ? view.to_act : view.turn) : null;
  const lastEvent = state.lastEvent;
  const inviteLink = state.table ? `${location.origin}/?invite=${state.table.invite_code}` : '';

  return html`<div class=${cls('table-screen', `speed-${settings.speed}`, dragging && 'dragging')}>
    <${TopBar}
      state=${state}
      status=${status}
      me=${me}
      token=${token}
      tableId=${tableId}
      settings=${settings}
      onSettings=${onSettings}
      onResults=${() => dispatch({ type: 'hand_over', ...state.handResults.at(-1) })}
      onHelp=${() => setHelp(true)}
    />
    <${ConnectionRibbon} status=${status} />
    ${spectator && state.table && html`<${WatchRibbon} state=${state} />`}

    <main class="table" id="main" aria-label=${t('table.label')}>
      <h1 class="visually-hidden">${t('table.heading')}</h1>
      <${OtherSeats} state=${state} seats=${othersAround(players, me)} turnSeat=${turnSeat} />

      ${!view
        ? html`<${WaitingRoom} state=${state} inviteLink=${inviteLink} toasts=${toasts} />`
        : html`
          <section class="center" aria-label=${t('table.center')}>
            <div class="stock-area">
              <${Stock}
                size=${view.stock_size}
                spectator=${spectator}
                legal=${ready.draw}
                hinted=${hintMove && hintMove.verb === 'draw'}
                onDraw=${actions.draw}
              />
              ${me && phase === 'draw' && myTurn && view.stock_size === 0 && has(legal, 'end') &&
              html`<button onClick=${actions.end}>${t('action.end')}</button>`}
            </div>
            <${DiscardPile}
              pile=${view.discard_pile}
              spectator=${spectator}
              legalDepths=${new Set([...takeDepths(legal), ...rummyDepths(legal)])}
              hintedDepth=${hintMove && (hintMove.verb === 'take' || hintMove.verb === 'rummy') ? hintMove.number : null}
              discarding=${phase === 'play' && myTurn && selection.length === 1 ? selectedCodes[0] : null}
              dropLegal=${discardOk}
              onTake=${actions.takeDownTo}
            />
          </section>

          <${MeldsArea}
            melds=${view.melds}
            spectator=${spectator}
            targets=${meldTargets}
            hinted=${hintMove && hintMove.verb === 'layoff' ? hintMove.number : null}
            dragging=${dragging}
            name=${name}
            badge=${badge}
            me=${me}
            onLayOff=${(number) => actions.layOff(number)}
          />

          <section class=${cls('me', myTurn && 'my-turn')} aria-label=${t('me.label')}>
            <div class="status-line" aria-live="polite" data-status>
              ${online ? describeStatus(state, { me, myTurn, phase, name, mustUse }) : t('status.reconnecting')}
              ${state.timer && html` <span class="timer">${state.timer.seat === me && me ? t('timer.label.you') : t('timer.label', { who: name(state.timer.seat) })} <${Countdown} until=${state.timerUntil} /></span>`}
            </div>
            ${state.call && me && online && html`<${CallBar} until=${state.callUntil} actions=${actions} />`}
            ${(hint || (!spectator && !rated)) &&
            html`<div class="hint-tray" role="status" data-hint-tray>
              ${hint
                ? html`<div class="hint">${t('hint.prefix')} ${hint.text}</div>`
                : html`<span class="hint-empty" aria-hidden="true"><kbd>H</kbd> ${t('action.hint')}</span>`}
            </div>`}
            ${!spectator &&
            html`<${Toolbar}
              legal=${legal}
              ready=${ready}
              canUndo=${state.canUndo && online}
              online=${online}
              undoOffered=${features.has('undo')}
              rated=${rated}
              sortMode=${sortMode}
              actions=${{ ...actions, sortBy }}
            />`}
            ${me &&
            html`<div class="my-score" aria-hidden="true">
              <span class=${cls('seat-swatch', seatColorClass(me))}></span>
              <strong>${name(me)}</strong>
              <span>${t('seat.total', { total: view.totals[me] })}</span>
              <span class="muted">${t('seat.points', { points: view.points[me] })}</span>
            </div>`}
            ${me &&
            html`<${Hand}
              entries=${entries}
              selected=${selected}
              arrived=${arrived}
              mustUse=${mustUse}
              floating=${view.floating}
              onToggle=${toggle}
              onMove=${moveCard}
              drag=${drag}
            />`}
          </section>
        `}

      <${SidePanel}
        log=${state.log}
        chat=${chat}
        chatAuthors=${chatAuthors(state.chat, tableId, me, mutes)}
        onMute=${mutes.toggle}
        muteError=${mutes.error}
        panel=${panel}
        onPanel=${setPanel}
        name=${name}
        me=${me}
        canChat=${!!me}
        unread=${unread}
        onSay=${(text) => {
          if (conn.current && conn.current.send({ type: 'chat', text })) return true;
          toasts.show(t('error.offline'), 'error');
          return false;
        }}
      />
      <p class="visually-hidden" aria-live="polite">${lastEvent && isLogged(lastEvent) ? describeEvent(lastEvent, name, me) : ''}</p>
    </main>

    ${state.summary &&
    html`<${Summary}
      state=${state}
      me=${me}
      token=${token}
      tableId=${tableId}
      name=${name}
      onClose=${() => closeSummary(false)}
      onReady=${() => closeSummary(true)}
      toasts=${toasts}
    />`}
    ${dialog &&
    html`<${ChoiceDialog}
      title=${dialog.title}
      options=${dialog.options}
      onChoose=${(move) => {
        setDialog(null);
        actions.act(move);
      }}
      onCancel=${() => setDialog(null)}
    />`}
    ${help && html`<${HelpDialog} table=${state.table} spectator=${spectator} onClose=${() => setHelp(false)} />`}
    <${Toasts} toasts=${toasts} />
  </div>`;
}

/** The other people who wrote in the chat (the newest line of each), each with whether
 * their chat is hidden and whether hiding it is the account's mute (`SidePanel`'s buttons). */
function chatAuthors(chat, tableId, me, mutes) {
  const latest = new Map();
  for (const line of chat) {
    if (!line.seat) continue; // the table's own notes
    const mine = line.account ? !!mutes.username && line.account.toLowerCase() === mutes.username.toLowerCase() : line.seat === me;
    if (!mine) latest.set(chatAuthor(tableId, line), line);
  }
  return [...latest.entries()].map(([key, line]) => ({
    key,
    line,
    name: line.name,
    seat: line.seat,
    muted: mutes.muted(line),
    byAccount: !!mutes.username && !!line.account,
  }));
}

/** What the seat's player is told and what this browser counts: a Rummy! call lost to another
 * player's (who got the card), and the player's statistics of hands and games. */
function useSeatEffects(state, me, tableId, toasts) {
  useEffect(() => {
    if (state.lostCall) toasts.show(t('call.lost.you', { who: seatName(state, state.lostCall.seat) }), 'info', 'call_lost');
  }, [state.lostCall]);
  useEffect(() => {
    if (!me || !state.summary || !state.summary.scores) return;
    store.countHand(`${tableId}:${state.summary.hand_number}`, state.summary.scores[me] || 0);
  }, [state.summary && state.summary.hand_number, me]);
  useEffect(() => {
    if (!me || !state.gameOver) return;
    store.countGame(`${tableId}:game`, state.gameOver.winner === me);
  }, [state.gameOver, me]);
}
