// The table as this client knows it, changed only by the server's messages (a reducer: the
// same messages in the same order always give the same state).
import { t } from './i18n.js';
import { isLogged } from './table-log.js';

export const EMPTY = {
  version: -1,
  table: null, // table_id, invite_code, status, players, rules, call_seconds, …
  you: { seat: null, spectator: true },
  seats: [],
  chat: [],
  view: null, // the seat's observation (docs/protocol.md), null before the first deal
  legal: [], // this seat's legal moves in notation
  legalMoves: [], // the same moves as data ({ move, seat, verb, cards, number, end }: moves.js)
  call: null, // { deadline_ms, window } while this seat may call Rummy
  deciding: [], // the seats the open call window asks and that have not answered (for everyone)
  callUntil: null, // the call's deadline on this browser's clock
  timer: null,
  timerUntil: null,
  rematch: null,
  handResults: [], // one per finished hand: scores, melded, left, ended_by, out, totals
  summary: null, // the hand summary to show: { hand_number, …, left_cards, ready, nextHandStarted }
  closedHand: null, // the hand whose summary this page's player closed
  nextHand: null, // between hands: { waiting: seats still reading the summary, until: deal time }
  gameOver: null, // { totals, winner, hands }
  log: [], // what happened, newest last: { id, event, view }
  lastEvent: null,
  queued: null, // this seat's move waiting for the call window to close, as data
  lostCall: null, // this seat's Rummy! call lost to another's: { seat, move, version }
  canUndo: false, // the server says an undo is possible now (when it offers undo at all)
  serverHint: null, // the server's hint: { move, version }
};

let logIds = 0;

/** A move as data, from a message that carries one (docs/protocol.md, "Moves as data"). */
function moveOf(message) {
  const { move, seat, verb, cards, number, end } = message;
  return { move, seat, verb, cards, number, end };
}

function withTimes(state, message, now) {
  const call = message.call ?? null;
  const timer = message.timer ?? null;
  return {
    ...state,
    call,
    callUntil: call ? now + call.deadline_ms : null,
    deciding: message.deciding ?? [],
    timer,
    timerUntil: timer ? now + timer.ms_left : null,
  };
}

/** Totals after each hand, from the hand results: [{ P1: 45, P2: -10 }, …]. */
export function totalsByHand(results) {
  const running = {};
  return results.map((r) => {
    if (r.totals) return { ...r.totals };
    for (const [seat, score] of Object.entries(r.scores)) running[seat] = (running[seat] || 0) + score;
    return { ...running };
  });
}

/** The log without the move an undo took back: its newest line of that move. */
function withoutUndone(log, move) {
  const i = log.findLastIndex((entry) => entry.event && entry.event.kind === 'move' && entry.event.move === move);
  return i < 0 ? log : [...log.slice(0, i), ...log.slice(i + 1)];
}

/**
 * The Moves log rebuilt from a state's public log of the hand (the deal, every move, the cards
 * each took from the pile): after a reload, for a friend who joins late and for spectators. Who
 * made a move for an away player (`by`) is not in the history: the lines this page saw come
 * in keep it.
 */
export function logFromHistory(history, before = []) {
  const seen = before.filter((entry) => entry.event && entry.event.kind === 'move');
  let moves = 0;
  return history.filter((past) => isLogged({ event: past })).map((past) => {
    if (past.kind !== 'move') return { id: ++logIds, event: { ...past }, pile: [] };
    const known = seen[moves++];
    const by = known && known.event.move === past.move ? known.event.by : undefined;
    const event = { kind: 'move', ...moveOf(past), ...(by ? { by } : {}) };
    // describeMove names the deepest card taken from the pile it is given
    return { id: ++logIds, event, pile: past.taken || [] };
  });
}

export function reduce(state, message, now = Date.now()) {
  switch (message.type) {
    case 'state': {
      const view = message.view;
      let handResults = view && view.hand_results ? view.hand_results : state.handResults;
      const totals = totalsByHand(handResults);
      handResults = handResults.map((r, i) => ({ ...r, hand_number: i + 1, totals: totals[i] }));
      let summary = state.summary;
      let gameOver = state.gameOver;
      // the last hand's summary, with the cards left in each hand (shown once it is over)
      const last = () => ({ ...handResults.at(-1), left_cards: view.left_cards || null });
      if (view && view.phase === 'game_over') {
        gameOver = { totals: view.totals, winner: view.winner, hands: handResults.length };
        summary = summary || (handResults.length ? last() : null);
      }
      const nextHand = nextHandOf(message.next_hand, now);
      const mine = message.you && message.you.seat;
      const waitsForMe = !!(nextHand && mine && nextHand.waiting.includes(mine));
      const hand = handResults.length;
      if (view && view.phase === 'hand_over' && hand) {
        // a reload (or a reconnection) between hands shows the last hand's summary, unless
        // this page's player closed this very one and the server no longer waits for them;
        // where the server has their ready already, it waits for the others, as Play on's
        const show = summary ? summary.hand_number !== hand : state.closedHand !== hand || waitsForMe;
        if (show) summary = nextHand && mine && !waitsForMe ? { ...last(), ready: true } : last();
      } else if (summary && view && view.phase !== 'game_over' && view.hand_number > summary.hand_number) {
        summary = afterDeal(summary); // the next hand was dealt while this page was away
      }
      // back between hands: the server waits for this seat again until it closes the summary
      if (summary && summary.ready && waitsForMe) summary = { ...summary, ready: false };
      const log = message.log ? logFromHistory(message.log, state.log) : state.log;
      return withTimes(
        {
          ...state,
          version: message.version,
          table: message.table,
          you: message.you,
          seats: message.seats,
          chat: message.chat || [],
          view,
          legal: message.legal || [],
          legalMoves: message.legal_moves || [],
          rematch: message.rematch,
          handResults,
          summary,
          gameOver,
          nextHand,
          log,
          queued: null,
          canUndo: !!message.can_undo,
        },
        message,
        now,
      );
    }
    case 'update': {
      const event = message.event || {};
      let summary = state.summary;
      let queued = state.queued;
      if (event.kind === 'deal' && summary) summary = afterDeal(summary);
      if (event.kind === 'move' && queued && event.move === queued.move) queued = null;
      // two called Rummy! at once: the engine applied the other seat's call (the nearest after
      // the discarder), so this seat's queued call is dropped and its player is told who got it
      let lostCall = state.lostCall;
      const caller = event.kind === 'move' && event.verb === 'rummy' ? event.seat : null;
      if (caller && queued && queued.verb === 'rummy' && queued.seat !== caller) {
        lostCall = { seat: caller, move: event.move, version: message.version };
        queued = null;
      }
      const entry = { id: ++logIds, event, pile: state.view ? state.view.discard_pile : [] };
      const log =
        event.kind === 'deal'
          ? [entry]
          : event.kind === 'undo'
            ? withoutUndone(state.log, event.move)
            : isLogged(entry)
              ? [...state.log.slice(-199), entry]
              : state.log;
      const table = state.table ? { ...state.table, status: message.view && message.view.phase === 'game_over' ? 'finished' : 'playing' } : state.table;
      return withTimes(
        {
          ...state,
          version: message.version,
          table,
          view: message.view,
          legal: message.legal || [],
          legalMoves: message.legal_moves || [],
          summary,
          nextHand: event.kind === 'deal' ? null : state.nextHand,
          log,
          lastEvent: entry,
          queued,
          lostCall,
          canUndo: !!message.can_undo,
          serverHint: null,
        },
        message,
        now,
      );
    }
    case 'seats':
      return { ...state, seats: message.seats };
    case 'chat':
      return {
        ...state,
        chat: [...state.chat.slice(-99), { seat: message.seat, name: message.name, text: message.text, at: message.at, account: message.account || null }],
      };
    case 'hand_over': {
      const { type, version, ...result } = message;
      const handResults = state.handResults.length >= result.hand_number
        ? state.handResults
        : [...state.handResults, result];
      // the same hand's again (a resync crossed it): the summary open for it stays as it is
      if (state.summary && state.summary.hand_number === result.hand_number) return { ...state, handResults };
      return { ...state, handResults, summary: { ...result } };
    }
    case '_ready': // this page's own: its player closed the summary (summaryReady)
      return summaryReady(state);
    case 'next_hand':
      return { ...state, nextHand: nextHandOf(message, now) };
    case 'game_over': {
      const { type, version, ...over } = message;
      return { ...state, gameOver: over, table: state.table && { ...state.table, status: 'finished' } };
    }
    case 'rematch':
      return { ...state, rematch: { table_id: message.table_id, invite_code: message.invite_code } };
    case 'hint':
      return { ...state, serverHint: { move: message.move, version: message.version } };
    case 'queued':
      return { ...state, queued: moveOf(message) };
    case 'error':
      if (message.code === 'draw_cancelled') return { ...state, queued: null };
      return state;
    default:
      return state;
  }
}

/** The hand summary once the next hand is dealt: one its player closed with Play on (ready)
 * goes; one left open says the next hand started. */
function afterDeal(summary) {
  return summary.ready ? null : { ...summary, nextHandStarted: true };
}

/** Close the hand summary (a state that comes before the next deal does not show it again,
 * unless the server waits for this player once more). */
export function closeSummary(state) {
  return { ...state, summary: null, closedHand: state.summary ? state.summary.hand_number : state.closedHand };
}

/** The player has said they are ready for the next hand: the summary stays, waiting for the
 * others, until the deal. */
export function summaryReady(state) {
  return state.summary ? { ...state, summary: { ...state.summary, ready: true } } : state;
}

/** The hand whose summary this player may close with a `ready` now (the server waits for it),
 * or null: only between hands, for a seated player, for the hand just over. */
export function readyFor(state) {
  const view = state.view;
  if (!view || view.phase !== 'hand_over' || !state.you || !state.you.seat || state.gameOver) return null;
  if (!state.summary || state.summary.hand_number !== view.hand_number) return null;
  return view.hand_number;
}

/** The server's next_hand ({ waiting, deal_ms }) on this browser's clock. */
function nextHandOf(part, now) {
  return part ? { waiting: part.waiting, until: now + part.deal_ms } : null;
}

/** The name of a seat: its player's name, or 'P3' when it has none. */
export function seatName(state, seat) {
  const s = state.seats.find((x) => x.seat === seat);
  if (s && s.name) return s.name;
  if (s && s.left_name) return s.left_name; // gave the seat up: the computer plays it
  if (s && s.kind === 'bot') return t('seat.bot.name', { seat });
  return seat;
}
