// Which colour each seat wears at the table (its swatch, its melds' cards, its chat name), and the
// short mark under a card of a meld that says who played it.

const SEAT_COLORS = 8;

/** 'P3' -> 2. */
export function seatIndex(seat) {
  return Number(String(seat).slice(1)) - 1;
}

/** The class that gives a seat its colour: 'seat-color-2'. */
export function seatColorClass(seat) {
  return `seat-color-${seatIndex(seat) % SEAT_COLORS}`;
}

/** A person's initials ('Ann Lee' -> 'AL', 'Ben' -> 'BE'). */
export function initials(name) {
  const words = String(name).trim().split(/\s+/);
  return (words.length > 1 ? words[0][0] + words[1][0] : words[0].slice(0, 2)).toUpperCase();
}

/** The seats in the order the player sees them round the table: the ones after `me` first. */
export function othersAround(players, me) {
  if (!me) return players;
  const i = seatIndex(me);
  return [...players.slice(i + 1), ...players.slice(0, i)];
}
