// connection.js: how a table's connection comes back after the server closes it, and the
// language it says.
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from './web.js';

/** A WebSocket that never connects: the tests close it themselves. */
class FakeSocket {
  static OPEN = 1;
  static made = [];

  constructor(url) {
    this.url = url;
    this.readyState = 0;
    FakeSocket.made.push(this);
  }

  send(text) {
    (this.sent ||= []).push(JSON.parse(text));
  }

  close() {}
}

globalThis.WebSocket = FakeSocket;
globalThis.window = { addEventListener() {}, removeEventListener() {} };
globalThis.location = { protocol: 'http:', host: 'cards.example' };

const { TableConnection } = await load('connection.js');

// every connection a test opens is closed after it, passed or failed (its timers would keep the
// test process alive)
const opened = [];
afterEach(() => {
  for (const connection of opened.splice(0)) connection.close();
});

function open(language = undefined) {
  const statuses = [];
  const connection = new TableConnection({
    path: '/ws/tables/T1',
    token: 'token',
    onMessage() {},
    onStatus: (status, detail) => statuses.push({ status, detail }),
    language,
  });
  opened.push(connection);
  connection.connect();
  return { connection, statuses, socket: () => FakeSocket.made.at(-1) };
}

/** Close the current socket with `code`; the pause before the next attempt. */
function closeWith(table, code) {
  table.socket().onclose({ code });
  const last = table.statuses.at(-1);
  assert.equal(last.status, 'reconnecting');
  clearTimeout(table.connection.retry);
  table.connection.connect(); // as the timer would, without waiting for it
  return last.detail.in;
}

test('a table reloaded or moved to another server process is rejoined at once', () => {
  for (const code of [1012, 4409]) {
    const table = open();
    const pause = closeWith(table, code);
    assert.ok(pause >= 50 && pause < 250, `${code}: ${pause} ms`);
  }
});

test('a connection lost without a word waits the usual growing pause', () => {
  const table = open();
  assert.equal(closeWith(table, 1006), 400);
  assert.equal(closeWith(table, 1006), 800);
});

test('come-back closes that keep coming fall back to the growing pauses', () => {
  const table = open();
  assert.ok(closeWith(table, 4409) < 250);
  assert.ok(closeWith(table, 4409) < 250);
  assert.equal(closeWith(table, 4409), 1600); // the third attempt in a row without a state
});

test('a refusal for good does not reconnect', () => {
  const table = open();
  table.socket().onclose({ code: 4404 });
  assert.equal(table.statuses.at(-1).status, 'closed');
});

/** The socket opens: the connection says who it is (and its language). */
function opens(table) {
  const socket = table.socket();
  socket.readyState = FakeSocket.OPEN;
  socket.onopen();
  return socket;
}

test('a language switched while connected is said at once, and at every reconnection', () => {
  let language = 'en';
  const table = open(() => language);
  const first = opens(table);
  assert.deepEqual(first.sent, [{ type: 'auth', token: 'token', lang: 'en', summary: true }]);
  language = 'hu';
  assert.equal(table.connection.sayLanguage('hu'), true);
  assert.deepEqual(first.sent.at(-1), { type: 'language', lang: 'hu' });
  closeWith(table, 1006);
  const second = opens(table);
  assert.notEqual(second, first);
  assert.deepEqual(second.sent, [{ type: 'auth', token: 'token', lang: 'hu', summary: true }]);
});

test('a language switched while offline is not sent: the next auth says it', () => {
  let language = 'en';
  const table = open(() => language);
  language = 'lo';
  assert.equal(table.connection.sayLanguage('lo'), false); // still connecting
  const socket = opens(table);
  assert.deepEqual(socket.sent, [{ type: 'auth', token: 'token', lang: 'lo', summary: true }]);
});

test('a paired table cancelled after its state is final and keeps the reason the server gave', () => {
  const table = open();
  const socket = table.socket();
  socket.onmessage({ data: JSON.stringify({ type: 'state', version: 0 }) });
  const reason = 'Jo did not come to the table in time: the game is cancelled';
  socket.onmessage({ data: JSON.stringify({ type: 'error', version: 0, code: 'pairing_cancelled', message: reason }) });
  socket.onclose({ code: 4410 });
  assert.deepEqual(table.statuses.at(-1), { status: 'closed', detail: { code: 4410, reason } });
  assert.equal(FakeSocket.made.at(-1), socket); // no new connection
});
