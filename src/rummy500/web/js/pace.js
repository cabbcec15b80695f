// Computer turns at a pace a person can follow. The server sends a computer player's moves as
// soon as they are made (an easy one draws, melds and discards within a few milliseconds); the
// page shows them one at a time, a moment apart (the computer-speed setting), marks the last
// move on the table for that moment; meanwhile the status line says "Ben is thinking…"
// (table-status.js).
//
// Nothing is lost or reordered: every message goes through one queue in the order it came, and
// only a computer player's move waits there. A message that asks this player for something with
// a deadline (a Rummy! call) or a whole new state shows everything before it at once; so does
// anything the player sends (their own moves never wait behind the computer's). Chat lines do not
// touch the game: they are shown at once.
import { useEffect, useRef } from './lib.js';

/** How long each computer move stays on its own before the next one is shown (ms): the
 * terminal game's paces (rummy500.tui.session.PACES). */
export const COMPUTER_SPEEDS = { slow: 1800, normal: 900, fast: 350, instant: 0 };
export const DEFAULT_COMPUTER_SPEED = 'normal';

/** The pause after a shown move at a speed setting (an unknown setting is normal). */
export function paceMs(speed) {
  return COMPUTER_SPEEDS[speed] ?? COMPUTER_SPEEDS[DEFAULT_COMPUTER_SPEED];
}

/**
 * What the queue does with a message: 'aside' (shown at once, not queued: chat), 'urgent' (shown
 * at once with everything queued before it: a new state, a call this player may make), 'paced'
 * (a computer player's move: waits its turn), 'queued' (in order, without a pause of its own).
 */
export function paceOf(message) {
  if (message.type === 'chat' || message.type === 'pong') return 'aside';
  if (message.type === 'state' || message.call) return 'urgent';
  const event = message.type === 'update' ? message.event || {} : {};
  if (event.kind === 'move' && (event.by === 'bot' || event.by === 'takeover')) return 'paced';
  return 'queued';
}

/**
 * The queue between the connection and the page. `deliver(message, receivedAt)` shows a message
 * (`receivedAt`: when it came, on Date.now()'s clock, so that a call's countdown stays true);
 * `pauseMs()` is the pause after each shown update. `clock` and `timers` are for tests.
 */
export class Pacer {
  constructor(deliver, pauseMs, { clock = () => Date.now(), timers = globalThis } = {}) {
    this.deliver = deliver;
    this.pauseMs = pauseMs;
    this.clock = clock;
    this.timers = timers;
    this.queue = [];
    this.nextAt = 0; // a paced move is not shown before this
    this.timer = null;
  }

  /** A message from the server. */
  push(message) {
    const kind = paceOf(message);
    const at = this.clock();
    if (kind === 'aside') {
      this.deliver(message, at);
      return;
    }
    this.queue.push({ message, at });
    if (kind === 'urgent') this.flush();
    else this.pump();
  }

  /** Show everything waiting, now (the player acts, or something urgent came). */
  flush() {
    this.cancelTimer();
    while (this.queue.length) this.show(this.queue.shift());
  }

  /** How many messages wait. */
  get waiting() {
    return this.queue.length;
  }

  /** Stop (the screen closes): nothing more is shown. */
  stop() {
    this.cancelTimer();
    this.queue = [];
  }

  pump() {
    this.cancelTimer();
    while (this.queue.length) {
      const next = this.queue[0];
      if (paceOf(next.message) === 'paced') {
        const wait = this.nextAt - this.clock();
        if (wait > 0) {
          this.timer = this.timers.setTimeout(() => {
            this.timer = null;
            this.pump();
          }, wait);
          return;
        }
      }
      this.show(this.queue.shift());
    }
  }

  show({ message, at }) {
    this.deliver(message, at);
    // every move shown (a person's too) stands a moment before a computer player's next one
    if (message.type === 'update') this.nextAt = this.clock() + this.pauseMs();
  }

  cancelTimer() {
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = null;
  }
}

/** A Pacer for the life of a screen; the pause follows the setting as it changes. */
export function usePacer(deliver, speed) {
  const speedRef = useRef(speed);
  speedRef.current = speed;
  const deliverRef = useRef(deliver);
  deliverRef.current = deliver;
  const pacer = useRef(null);
  if (pacer.current === null) {
    pacer.current = new Pacer((m, at) => deliverRef.current(m, at), () => paceMs(speedRef.current));
  }
  useEffect(() => () => pacer.current.stop(), []);
  return pacer.current;
}

// --- the last move, marked on the table for a moment --------------------------------------------

/**
 * Where the move of an update shows on the table: a list of [CSS selector, mark] (the marks are
 * the `data-last-move` attribute's values). Another player's draw is a card back at their seat
 * (what they drew is theirs to see); this player's drawn or taken cards, face up in their hand.
 */
export function lastMoveMarks(event, view, me) {
  if (!event || event.kind !== 'move' || !view) return [];
  const move = event; // the move as data (docs/protocol.md, "Moves as data")
  const mine = move.seat === me;
  const seat = `.seat[data-seat="${move.seat}"]`;
  const arrived = '.hand .hand-card.arrived';
  switch (move.verb) {
    case 'draw':
      return [[mine ? arrived : seat, 'draw']];
    case 'take':
      return [[mine ? arrived : seat, 'take']];
    case 'rummy':
      return [[seat, 'rummy']];
    case 'meld':
      return newestMeld(view, 'meld');
    case 'layoff':
      return [[`[data-meld="${move.number}"]`, 'layoff']];
    case 'discard':
      return view.discard_pile.length ? [['.pile [data-depth="1"]', 'discard']] : [];
    default:
      return [];
  }
}

function newestMeld(view, mark) {
  if (!view.melds.length) return [];
  const number = Math.max(...view.melds.map((m) => m.number));
  return [[`[data-meld="${number}"]`, mark]];
}

/**
 * Mark the last move on the table (`data-last-move`, styled in style.css) until `ms` have passed
 * or the next move comes. The marks are attributes the components do not render, so a render in
 * between keeps them; an element a render replaces loses its mark, as it should.
 */
export function useLastMoveMarks(lastEvent, view, me, ms) {
  useEffect(() => {
    const marks = lastMoveMarks(lastEvent && lastEvent.event, view, me);
    const marked = [];
    for (const [selector, mark] of marks) {
      for (const el of document.querySelectorAll(selector)) {
        el.setAttribute('data-last-move', mark);
        marked.push(el);
      }
    }
    if (!marked.length) return undefined;
    const clear = () => marked.forEach((el) => el.removeAttribute('data-last-move'));
    const timer = setTimeout(clear, ms);
    return () => {
      clearTimeout(timer);
      clear();
    };
  }, [lastEvent]);
}

/** How long a move stays marked at a speed setting: its pause, and never less than a glance. */
export function markMs(speed) {
  return Math.max(1200, paceMs(speed) * 1.5);
}
