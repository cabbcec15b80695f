// The one line under the table that says what happens now: whose turn, what this player may do,
// who may still call Rummy!.
import { t } from './i18n.js';
import { cardShort } from './cards.js';

/** The status line for this state; `name(seat)` says who a seat is ("you" for the player). */
export function describeStatus(state, { me, myTurn, phase, name, mustUse }) {
  const view = state.view;
  if (!view) return t('status.waiting');
  if (phase === 'game_over') {
    if (!view.winner) return t('status.hand.over');
    return me && view.winner === me ? t('status.game.over.you') : t('status.game.over', { who: name(view.winner) });
  }
  if (phase === 'hand_over') return t('status.hand.over');
  if (phase === 'call') {
    if (state.call) {
      // the prompt names what can be claimed: the deepest card of each depth that may be called
      const pile = view.discard_pile || [];
      const depths = (state.legalMoves || []).filter((m) => m.verb === 'rummy').map((m) => m.number);
      const cards = depths.filter((d) => d <= pile.length).map((d) => cardShort(pile[pile.length - d]));
      return t('status.call.cards', { n: cards.length, cards: cards.join(', ') });
    }
    // only the seats the window asks (the server's `deciding`): a seat that let these cards go,
    // and passes by itself, is not waited for (the engine's window still lists it)
    const deciding = state.deciding || [];
    if (deciding.length === 0) return state.queued ? t('info.queued') : t('status.call.closing');
    const waiting = deciding.map(name).join(', ');
    if (state.queued) return t('status.call.queued', { who: waiting });
    return t('status.call', { who: waiting });
  }
  if (!me || !myTurn) {
    const info = state.seats.find((s) => s.seat === view.turn);
    // a computer player is to move: "Ben is thinking…" (its moves come at the page's pace)
    if (info && info.kind === 'bot') return t('status.thinking', { who: name(view.turn) });
    const bot = me && info && info.kind === 'human' && info.bot_playing;
    return t(bot ? 'status.turn.bot' : 'status.turn', { who: name(view.turn) });
  }
  if (phase === 'draw') return view.hand.length === 0 ? t('status.float') : t('status.draw');
  if (mustUse) return t('status.must.use', { card: cardShort(mustUse) });
  return t('status.play');
}
