// dialogs.js: the choice among moves, the help, the toasts; and the table's rules in words that
// the help shows (lobby.js's rulesDetails).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load, moveData, renderToString, textOf } from './web.js';

const { html } = await load('lib.js');
const { ChoiceDialog, HelpDialog, Toasts } = await load('dialogs.js');
const { rulesDetails, rulesSummary } = await load('lobby.js');
const { describeOption, layoffsFor } = await load('moves.js');

const noop = () => {};

test('a choice among the legal moves offers each in words, and sends the move chosen', async () => {
  const legal = ['P1 layoff JK=7D 1', 'P1 layoff JK=3D 1', 'P1 layoff JK=KC 2 high', 'P1 discard JK'].map(moveData);
  const options = layoffsFor(legal, 'JK', 1).map((m) => ({ move: m.move, label: describeOption(m) }));
  const page = await renderToString(
    html`<${ChoiceDialog} title="How do you lay it off?" options=${options} onChoose=${noop} onCancel=${noop} />`,
  );
  const buttons = [...page.matchAll(/<button class="choice" data-move="([^"]+)">([^<]+)<\/button>/g)].map((m) => [m[1], m[2]]);
  assert.deepEqual(buttons, [
    ['P1 layoff JK=7D 1', 'Lay off Joker=7♦ on meld 1 (joker as 7♦)'],
    ['P1 layoff JK=3D 1', 'Lay off Joker=3♦ on meld 1 (joker as 3♦)'],
  ]);
  assert.match(page, /aria-labelledby="dialog-title"/);
  assert.match(textOf(page), /^How do you lay it off\?.*Cancel$/);
});

test('the help opens on the guide for new players, which the server says (GET /api/guide)', async () => {
  const page = await renderToString(html`<${HelpDialog} onClose=${noop} table=${{ rules: 'target=300' }} />`);
  assert.match(page, /<h2 id="dialog-title">How to play<\/h2>/);
  assert.match(textOf(page), /Loading the guide…/);
  assert.match(page, /role="tablist"/);
  const tabs = [...page.matchAll(/role="tab" aria-selected="(true|false)" data-help="(\w+)"/g)].map((m) => `${m[2]}:${m[1]}`);
  assert.deepEqual(tabs, ['guide:true', 'rules:false', 'keys:false']);
  assert.match(page, /class="dialog help-dialog"/, 'not .help, whose text is muted');
  assert.doesNotMatch(page, /data-table-rules/, 'one tab at a time');
});

test('a spectator is not told how to drag or which keys play: no keys tab', async () => {
  const page = await renderToString(html`<${HelpDialog} onClose=${noop} table=${{ rules: 'target=300' }} spectator />`);
  const tabs = [...page.matchAll(/data-help="(\w+)"/g)].map((m) => m[1]);
  assert.deepEqual(tabs, ['guide', 'rules']);
});

test("a table's rules in words: the target, the preset, every option that is not the standard's", () => {
  assert.deepEqual(rulesDetails('jokers=on values=standard target=500'), [
    'Target: the first to 500 points wins.',
    'Rules: Standard.',
    'Every other rule is the standard one.',
  ]);
  assert.deepEqual(rulesDetails('jokers=on pickup=must-meld target=300'), [
    'Target: the first to 300 points wins.',
    'Rules: Hoyle.',
    'Taking from the discard pile: Whatever you take, even the top card alone, you must meld the deepest card at once.',
  ]);
  assert.deepEqual(rulesDetails('jokers=off rummy=off target=500'), [
    'Target: the first to 500 points wins.',
    'Rules: your own mix.',
    'Jokers: No jokers: the original game.',
    'Calling "Rummy!": No Rummy calls.',
  ]);
  assert.equal(rulesDetails('target=200')[1], 'Rules: Quick (to 200).');
  assert.equal(rulesSummary('jokers=off target=300 rummy=pile'), 'Jokers: no jokers · target 300');
});

test('errors are read out at once (alert), other notes politely (status)', async () => {
  const toasts = {
    items: [
      { id: 1, text: "It is Ben's turn, not yours.", kind: 'error', code: 'not_your_turn' },
      { id: 2, text: 'Your move will be played when the Rummy call window closes.', kind: 'info', code: null },
    ],
    dismiss: noop,
  };
  const page = await renderToString(html`<${Toasts} toasts=${toasts} />`);
  const alert = /<div role="alert"[^>]*>([\s\S]*?)<\/div><div role="status"/.exec(page);
  assert.ok(alert, page);
  assert.match(alert[1], /data-error="not_your_turn"/);
  assert.match(textOf(alert[1]), /It is Ben's turn, not yours\./);
  assert.doesNotMatch(alert[1], /Rummy call window/);
  const status = page.slice(page.indexOf('role="status"'));
  assert.match(textOf(status), /Your move will be played/);
  assert.equal((page.match(/aria-label="Dismiss"/g) || []).length, 2, page);
});
