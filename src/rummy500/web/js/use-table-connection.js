// The table's live connection as a hook: the state the server's messages build (table-state.js),
// the connection's status, and the refusals and notes said as toasts.
import { useState, useEffect, useRef, useReducer } from './lib.js';
import { t, currentLanguage } from './i18n.js';
import { refusalText } from './moves.js';
import { TableConnection } from './connection.js';
import { EMPTY, reduce, closeSummary, seatName } from './table-state.js';
import * as store from './store.js';
import { usePacer } from './pace.js';

function tableReducer(state, action) {
  if (action.type === '_close') return closeSummary(state);
  // a message the pacer held back: its deadlines count from when it came (pace.js)
  if (action.type === '_paced') return reduce(state, action.message, action.at);
  return reduce(state, action);
}

/**
 * Connect (and reconnect) to the table for the life of the screen, as the seat of `token` or as
 * a spectator. Returns { state, dispatch, status, conn, stateRef, pacer }: `conn.current` sends,
 * `stateRef.current` is the newest state shown (for callbacks made before it), dispatching
 * { type: '_close' } closes the hand summary. The server's messages are shown at the pace of
 * `computerSpeed` (pace.js): `pacer.flush()` shows what waits, as the player acts.
 */
export function useTableConnection(tableId, token, toasts, computerSpeed) {
  const [state, dispatch] = useReducer(tableReducer, EMPTY);
  const pacer = usePacer((message, at) => dispatch({ type: '_paced', message, at }), computerSpeed);
  const [status, setStatus] = useState({ status: 'connecting' });
  const conn = useRef(null);
  const stateRef = useRef(state);
  stateRef.current = state;

  useEffect(() => {
    const c = new TableConnection({
      path: `/ws/tables/${encodeURIComponent(tableId)}`,
      token,
      language: currentLanguage,
      onMessage: (message) => {
        pacer.push(message);
        if (message.type === 'error') {
          if (message.code === 'seat_left') store.forgetSeat(tableId);
          // a refused move or undo: the engine's reason, its seats named as this page names them
          const refused = message.code === 'illegal_move' || message.code === 'cannot_undo';
          const text = refused ? refusalText(message, (seat) => seatName(stateRef.current, seat)) : message.message;
          toasts.show(text, message.code === 'queued' ? 'info' : 'error', message.code);
        } else if (message.type === 'queued' && ['draw', 'take', 'end'].includes(message.verb)) {
          toasts.show(t('info.queued'), 'info');
        }
      },
      onStatus: (s, detail) => setStatus({ status: s, detail }),
    });
    conn.current = c;
    c.connect();
    return () => c.close();
  }, [tableId, token]);

  // the player switched language (the picker): the server's texts follow at once, no reconnection
  const language = currentLanguage();
  const saidLanguage = useRef(language);
  useEffect(() => {
    if (saidLanguage.current === language) return;
    saidLanguage.current = language;
    if (conn.current) conn.current.sayLanguage(language);
  }, [language]);

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

  return { state, dispatch, status, conn, stateRef, pacer };
}
