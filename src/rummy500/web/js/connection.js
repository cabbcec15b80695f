// One table's WebSocket (docs/protocol.md): say who we are (a seat's token, or watch), then
// receive the state and every change. Every message carries the table's version: an update that
// skips one asks for a resync; a dropped connection reconnects by itself with growing pauses and
// resyncs (the server sends the whole state again on every connection).

const CLOSE_NOT_AUTHENTICATED = 4401;
const CLOSE_SEAT_LEFT = 4403;
const CLOSE_NO_TABLE = 4404;
// A paired table cancelled: someone did not come (the `pairing_cancelled` error before it says who)
export const CLOSE_PAIRING_CANCELLED = 4410;
const FINAL_CLOSES = new Set([CLOSE_NOT_AUTHENTICATED, CLOSE_SEAT_LEFT, CLOSE_NO_TABLE, CLOSE_PAIRING_CANCELLED]);
// The server asks us to come straight back: the table is reloaded or now served by another
// server process (a hand-over, docs/protocol.md). A short random pause spreads a table's
// reconnections; once they keep failing, the usual growing pauses apply.
const CLOSE_RELOAD = 1012;
const CLOSE_MOVED = 4409;
const COME_BACK_CLOSES = new Set([CLOSE_RELOAD, CLOSE_MOVED]);
const COME_BACK_MS = 50;
const COME_BACK_SPREAD_MS = 200;
const PING_EVERY_MS = 15000;
const SILENCE_MS = 40000;

export class TableConnection {
  /**
   * onMessage(message) gets each message in order; onStatus(status, detail) hears
   * 'connecting' | 'open' | 'reconnecting' | 'closed' (closed: the server refused us for good).
   * language() is the page's language, said to the server at every (re)connection (and, when it
   * changes while connected, with sayLanguage).
   */
  constructor({ path, token, onMessage, onStatus, language = () => undefined }) {
    this.path = path;
    this.token = token;
    this.language = language;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.version = -1;
    this.status = 'connecting';
    this.attempt = 0;
    this.ws = null;
    this.stopped = false;
    this.lastHeard = Date.now();
    this.timers = [];
    this.refs = 0;
    this.online = () => this.reconnectSoon(0);
    window.addEventListener('online', this.online);
    this.pinger = setInterval(() => this.keepAlive(), PING_EVERY_MS);
  }

  url() {
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    return `${scheme}//${location.host}${this.path}`;
  }

  setStatus(status, detail) {
    this.status = status;
    this.onStatus(status, detail);
  }

  connect() {
    if (this.stopped) return;
    this.setStatus(this.attempt ? 'reconnecting' : 'connecting');
    let ws;
    try {
      ws = new WebSocket(this.url());
    } catch (e) {
      this.reconnectSoon();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      this.lastHeard = Date.now();
      const lang = this.language(); // the server's texts (errors, hints) in the page's language
      // summary: this page shows a hand summary and says ready when it is closed (the next deal
      // waits for it, docs/protocol.md "Between hands")
      ws.send(JSON.stringify(this.token ? { type: 'auth', token: this.token, lang, summary: true } : { type: 'watch', lang }));
    };
    ws.onmessage = (event) => {
      if (ws !== this.ws) return;
      this.lastHeard = Date.now();
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      this.receive(message);
    };
    ws.onclose = (event) => {
      if (ws !== this.ws) return;
      this.ws = null;
      if (this.stopped) return;
      if (FINAL_CLOSES.has(event.code)) {
        this.stopped = true;
        this.setStatus('closed', { code: event.code, reason: this.lastError });
        return;
      }
      if (COME_BACK_CLOSES.has(event.code) && this.attempt < 2) {
        this.reconnectSoon(COME_BACK_MS + Math.floor(Math.random() * COME_BACK_SPREAD_MS));
        return;
      }
      this.reconnectSoon();
    };
    ws.onerror = () => {
      // onclose follows and reconnects
    };
  }

  receive(message) {
    if (message.type === 'state') {
      this.version = message.version;
      this.attempt = 0;
      this.setStatus('open');
    } else if (message.type === 'update') {
      if (message.version <= this.version) return; // already seen (a resync crossed it)
      if (this.version >= 0 && message.version > this.version + 1) {
        this.resync(); // we missed one: ask for the whole state
        return;
      }
      this.version = message.version;
    } else if (this.version >= 0 && message.version > this.version) {
      this.resync(); // a message from a version we have not seen: we missed an update
    } else if (message.type === 'error' && (this.version < 0 || message.code === 'pairing_cancelled')) {
      this.lastError = message.message; // a refusal before the state, or why the table went (closing follows)
    }
    this.onMessage(message);
  }

  reconnectSoon(delay) {
    if (this.stopped) return;
    if (this.ws) {
      const old = this.ws;
      this.ws = null;
      try {
        old.close();
      } catch {
        // already closing
      }
    }
    this.attempt += 1;
    const wait = delay ?? Math.min(8000, 400 * 2 ** Math.min(this.attempt - 1, 5));
    this.setStatus('reconnecting', { in: wait });
    clearTimeout(this.retry);
    this.retry = setTimeout(() => this.connect(), wait);
  }

  keepAlive() {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return;
    if (Date.now() - this.lastHeard > SILENCE_MS) {
      this.reconnectSoon(0); // the connection died without saying so
      return;
    }
    this.send({ type: 'ping' });
  }

  /** Send a message; false when there is no open connection. */
  send(message) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  /** Send a move in notation; returns its ref (or null when offline). */
  move(text) {
    this.refs += 1;
    const ref = `m${this.refs}`;
    const message = { type: 'move', move: text, id: ref };
    if (this.version >= 0) message.version = this.version;
    return this.send(message) ? ref : null;
  }

  resync() {
    this.send({ type: 'resync' });
  }

  /**
   * The player switched language: the server says its texts (refusals, hints) in `lang` from now
   * on, and answers with a fresh state. Offline, nothing is sent: the next connection says the
   * page's language at auth or watch anyway. Returns whether it was sent.
   */
  sayLanguage(lang) {
    return this.send({ type: 'language', lang });
  }

  /** Drop the connection as a network failure would (the tests use it); it reconnects. */
  drop(ms = 300) {
    this.reconnectSoon(ms);
  }

  close() {
    this.stopped = true;
    clearTimeout(this.retry);
    clearInterval(this.pinger);
    window.removeEventListener('online', this.online);
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      ws.close();
    }
  }
}
