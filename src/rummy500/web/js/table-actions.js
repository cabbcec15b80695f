// What the player can do at the table, by button, key, click on the pile or a meld, or drop: each
// action turns the player's intent into a move in notation for the server to judge. When several
// legal moves fit (a joker's place, a meld to lay off on), the player is asked which.
import { t } from './i18n.js';
import { movesOf, meldsFor, layoffsFor, meldAttempt, describeOption, simpleHint } from './moves.js';
import { idsOfCards } from './hand-order.js';

/**
 * The table's actions for this render. `table`: { me, view, legal (the server's legal moves as
 * data), phase, myTurn, selection (the selected codes), call, canUndo, features, values,
 * entries, rated (no undo, no hints) }; `ui`: { send(message) -> bool, move(text) -> ref | null,
 * toasts, choose(title, options), setHint(hint), select(ids) }.
 */
export function tableActions(table, ui) {
  const { me, view, legal, phase, myTurn, selection } = table;
  const { toasts } = ui;

  const act = (move) => {
    ui.setHint(null);
    if (!ui.move(move)) toasts.show(t('error.offline'), 'error');
  };

  const choose = (title, moves, pile) => {
    ui.choose(
      title,
      moves.map((m) => ({ move: m.move, label: describeOption(m, pile) })),
    );
  };

  const draw = () => {
    if (!me) return;
    act(`${me} draw`);
  };

  const discard = (code = selection.length === 1 ? selection[0] : null) => {
    if (!me) return;
    if (!code) {
      toasts.show(t('error.select.discard'), 'error');
      return;
    }
    act(`${me} discard ${code}`);
  };

  // a card of the pile pressed (or its depth's key): a take, a Rummy! call, or (the top card,
  // with one card selected on the player's turn) a discard onto it
  const takeDownTo = (depth) => {
    if (!me) return;
    if (phase === 'call' && table.call) {
      act(`${me} rummy ${depth}`);
      return;
    }
    if (phase === 'play' && myTurn && selection.length === 1 && depth === 1) {
      discard();
      return;
    }
    act(`${me} take ${depth}`);
  };

  const meld = (codes = selection) => {
    if (!me) return;
    if (!codes.length) {
      toasts.show(t('error.select.meld'), 'error');
      return;
    }
    const options = meldsFor(legal, codes);
    if (options.length === 1) act(options[0].move);
    else if (options.length > 1) choose(t('dialog.meld'), options);
    else act(meldAttempt(me, codes));
  };

  const layOff = (number, code = selection[0]) => {
    if (!me) return;
    if (selection.length > 1 && code === selection[0]) {
      toasts.show(t('error.select.one.layoff'), 'error');
      return;
    }
    if (!code) {
      toasts.show(t('error.select.layoff'), 'error');
      return;
    }
    const options = layoffsFor(legal, code, number);
    if (options.length === 1) act(options[0].move);
    else if (options.length > 1) choose(t('dialog.layoff'), options);
    else act(`${me} layoff ${code} ${number}`);
  };

  const layOffAnywhere = () => {
    const code = selection[0];
    if (selection.length !== 1) {
      toasts.show(t('error.select.one.layoff'), 'error');
      return;
    }
    const options = layoffsFor(legal, code);
    if (options.length === 1) act(options[0].move);
    else if (options.length > 1) choose(t('dialog.layoff'), options);
    else if (view && view.melds.length) act(`${me} layoff ${code} ${view.melds[0].number}`);
    else toasts.show(t('error.no.melds'), 'error');
  };

  const callRummy = () => {
    if (!me) return;
    const options = movesOf(legal, 'rummy');
    if (options.length === 1) act(options[0].move);
    else if (options.length > 1) choose(t('dialog.rummy'), options, view ? view.discard_pile : []);
    else act(`${me} rummy 1`);
  };

  const pass = () => me && act(`${me} pass`);
  const end = () => me && act(`${me} end`);

  // show a hint: its text, and its cards selected in the hand
  const applyHint = (hint) => {
    ui.setHint(hint);
    if (hint.cards) ui.select(idsOfCards(table.entries, hint.cards));
  };

  // a hint: the server's (its strongest computer player) when it offers them, else one from
  // the legal moves (docs/web-needs.md)
  const showHint = () => {
    if (table.rated) {
      toasts.show(t('rated.hint'), 'info');
      return;
    }
    if (table.online === false) {
      toasts.show(t('hint.offline'), 'info');
      return;
    }
    if (table.features.has('hint') && legal.length && ui.send({ type: 'hint' })) return;
    const hint = simpleHint(legal, view, table.values);
    if (!hint) {
      toasts.show(t('hint.none'), 'info');
      return;
    }
    applyHint(hint);
  };

  const undo = () => {
    if (table.rated) toasts.show(t('rated.undo'), 'info');
    else if (!table.features.has('undo')) toasts.show(t('undo.unavailable'), 'info');
    else if (!ui.send({ type: 'undo' })) toasts.show(t('error.offline'), 'error');
  };

  return { act, draw, takeDownTo, meld, layOff, layOffAnywhere, discard, callRummy, pass, end, showHint, applyHint, undo };
}
