// What this browser remembers: the player's name, the seats it holds (their tokens), settings,
// the order of the hand at each table, and the player's own statistics.
const PREFIX = 'rummy500.';

function read(key, fallback) {
  try {
    const text = localStorage.getItem(PREFIX + key);
    return text === null ? fallback : JSON.parse(text);
  } catch {
    return fallback;
  }
}

function write(key, value) {
  try {
    localStorage.setItem(PREFIX + key, JSON.stringify(value));
  } catch {
    // private mode or full storage: the game still works, it just forgets
  }
}

export function getName() {
  return read('name', '');
}

export function setName(name) {
  write('name', name);
}

/** The seats this browser holds: table id -> { token, seat, name, code, at }. */
export function seats() {
  return read('seats', {});
}

export function seatAt(tableId) {
  return seats()[tableId] || null;
}

export function saveSeat(tableId, seat) {
  const all = seats();
  all[tableId] = { ...seat, at: Date.now() };
  // keep the 30 most recent
  const kept = Object.entries(all)
    .sort((a, b) => b[1].at - a[1].at)
    .slice(0, 30);
  write('seats', Object.fromEntries(kept));
}

export function forgetSeat(tableId) {
  const all = seats();
  delete all[tableId];
  write('seats', all);
}

// speed: the animations; computerSpeed: how long each computer move stays on its own (pace.js)
const DEFAULT_SETTINGS = { speed: 'normal', computerSpeed: 'normal', language: '', sound: false };

export function settings() {
  return { ...DEFAULT_SETTINGS, ...read('settings', {}) };
}

export function saveSettings(value) {
  write('settings', value);
}

export function handOrder(tableId) {
  return read(`order.${tableId}`, null);
}

export function saveHandOrder(tableId, cards) {
  write(`order.${tableId}`, cards);
}

// --- statistics, kept by this browser (the server keeps none yet: docs/web-needs.md) ----------

const EMPTY_STATS = { games: 0, wins: 0, hands: 0, points: 0, best: null, counted: [] };

export function stats() {
  return { ...EMPTY_STATS, ...read('stats', {}) };
}

/** Count a finished hand once: `key` is table id and hand number. */
export function countHand(key, score) {
  const s = stats();
  if (s.counted.includes(key)) return;
  s.counted = [...s.counted.slice(-200), key];
  s.hands += 1;
  s.points += score;
  s.best = s.best === null ? score : Math.max(s.best, score);
  write('stats', s);
}

/** Count a finished game once. */
export function countGame(key, won) {
  const s = stats();
  if (s.counted.includes(key)) return;
  s.counted = [...s.counted.slice(-200), key];
  s.games += 1;
  if (won) s.wins += 1;
  write('stats', s);
}

/** A wait for quick pairing to take up again on the start page (its paired table was cancelled:
 * someone did not come): { token, note }. Kept for this tab only, taken once. */
export function resumePairing(token, note) {
  try {
    sessionStorage.setItem(`${PREFIX}pairing`, JSON.stringify({ token, note }));
  } catch {
    // no storage: the player presses Play now again
  }
}

export function takePairing() {
  try {
    const text = sessionStorage.getItem(`${PREFIX}pairing`);
    sessionStorage.removeItem(`${PREFIX}pairing`);
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}
