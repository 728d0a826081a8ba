// Reviewing the agent's changes: the diff editor's Accept and Reject, a late
// click, a conflict with the user's typing, hunks, a cancelled run's
// proposal; and VS Code's own Refactor Preview.

import assert from 'node:assert/strict';
import { Harness, waitFor } from '../lib/harness.mjs';
import { call, done, go, scenario } from '../lib/scenario.mjs';

const accept = scenario(
  'accept',
  {
    files: { 'accept.go': go('func Hello() string { return "hi" }\n') },
    turns: [call('replace', { file_path: 'accept.go', old_string: 'func Hello()', new_string: 'func Greet()' }), done('Renamed Hello to Greet.')],
  },
  async (h) => {
    await h.openFile('accept.go');
    await h.command('agentls: Run…');
    const q = await h.quickInput((x) => x.message !== '');
    assert.match(q.message, /Context: accept\.go/, 'the input names the context');
    await h.answerInput('rename Hello to Greet in accept.go');
    await h.tab('accept.go (agentls proposal)').waitFor();
    await h.clickNotification(/agentls: accept\.go.*\(1 hunk\)/, 'Accept');
    const run = await h.endedRun('rename Hello to Greet in accept.go');
    assert.equal(run.end.reason, 'goal');
    assert.match(Harness.toolResults(run, 'replace')[0], /The user accepted the change; accept\.go is updated/);
    // No checker covers Go files here: no list comes for the new text, and
    // the model is told so (docs/editors.md, "VS Code").
    assert.match(Harness.toolResults(run, 'replace')[0], /The editor had not reported the problems of the new text of accept\.go after 2s/);
    // agentls.saveOnAccept (on by default): the accepted change is on disk.
    await waitFor('accept.go saved', () => h.file('accept.go').includes('func Greet()'));
    await h.notification(/agentls: Renamed Hello to Greet\./).waitFor();
  },
);

const reject = scenario(
  'reject, then a late click',
  {
    files: { 'reject.go': go('func Hello() string { return "hi" }\n') },
    turns: [call('replace', { file_path: 'reject.go', old_string: 'func Hello()', new_string: 'func Bye()' }), done('Left it.')],
  },
  async (h) => {
    await h.openFile('reject.go');
    await h.command('agentls: Run…');
    await h.answerInput('rename Hello to Bye in reject.go');
    await h.tab('reject.go (agentls proposal)').waitFor();
    await h.notification(/agentls: reject\.go/).waitFor();
    // Decided from the diff's title bar: the notification stays up.
    await h.titleAction('Reject change');
    const run = await h.endedRun('rename Hello to Bye in reject.go');
    assert.match(Harness.toolResults(run, 'replace')[0], /The user rejected the change to reject\.go/);
    assert.match(h.file('reject.go'), /func Hello\(\)/);
    // A late click on the old notification says so, rather than nothing.
    await h.clickNotification(/agentls: reject\.go/, 'Accept');
    await h.notification(/already decided \(rejected by the user\)/).waitFor();
    assert.match(h.file('reject.go'), /func Hello\(\)/);
  },
);

const conflict = scenario(
  'typing while the proposal is open: a conflict',
  {
    files: { 'stale.go': go('func Hello() string { return "hi" }\n\nfunc Other() {}\n') },
    turns: [call('replace', { file_path: 'stale.go', old_string: 'func Hello()', new_string: 'func Greet()' }), done('It changed.')],
  },
  async (h) => {
    await h.openFile('stale.go');
    await h.command('agentls: Run…');
    await h.answerInput('rename Hello to Greet in stale.go');
    await h.tab('stale.go (agentls proposal)').waitFor();
    await h.notification(/agentls: stale\.go/).waitFor();
    // The user types in the file, then accepts the now stale proposal.
    await h.focusTab('stale.go');
    await h.gotoLine(5);
    await h.page.keyboard.press('End');
    await h.page.keyboard.type(' // mine');
    await waitFor('the typing to reach the buffer', async () => (await h.editorText()).includes('func Other() {} // mine'));
    await h.clickNotification(/agentls: stale\.go/, 'Accept');
    const run = await h.endedRun('rename Hello to Greet in stale.go');
    const told = Harness.toolResults(run, 'replace')[0];
    assert.match(told, /conflict: stale\.go changed while the proposal was open; read it again/);
    assert.doesNotMatch(told, /rejected/);
  },
);

const hunks = scenario(
  'per-hunk accept and reject',
  {
    files: { 'hunks.go': go('func A() {}\n\nfunc B() {}\n\nfunc C() {}\n') },
    turns: [
      call('replace', {
        file_path: 'hunks.go',
        old_string: 'func A() {}\n\nfunc B() {}\n\nfunc C() {}',
        new_string: 'func Alpha() {}\n\nfunc Beta() {}\n\nfunc Gamma() {}',
      }),
      done('Renamed what the user kept.'),
    ],
  },
  async (h) => {
    await h.openFile('hunks.go');
    await h.command('agentls: Run…');
    await h.answerInput('rename the functions in hunks.go');
    await h.tab('hunks.go (agentls proposal)').waitFor();
    await h.clickNotification(/agentls: hunks\.go.*\(3 hunks\)/, 'Hunks…');
    const q = await h.quickInput((x) => x.rows.length > 0);
    assert.deepEqual(q.rows, ['hunks.go: hunk 1 of 3', 'hunks.go: hunk 2 of 3', 'hunks.go: hunk 3 of 3']);
    // Untick hunk 2, keep 1 and 3.
    await h.toggleQuickRow('hunk 2 of 3');
    await h.quickOK();
    await h.clickNotification(/\(2 of 3 hunks kept\)/, 'Accept');
    const run = await h.endedRun('rename the functions in hunks.go');
    const told = Harness.toolResults(run, 'replace')[0];
    assert.match(told, /Rejected: hunk 2 of 3 \(line 5\)/);
    await waitFor('hunks.go saved', () => h.file('hunks.go') === go('func Alpha() {}\n\nfunc B() {}\n\nfunc Gamma() {}\n'));
  },
);

const cancel = scenario(
  'cancel',
  {
    files: { 'cancel.go': go('func Hello() string { return "hi" }\n') },
    turns: [call('replace', { file_path: 'cancel.go', old_string: 'func Hello()', new_string: 'func Greet()' })],
  },
  async (h) => {
    await h.openFile('cancel.go');
    await h.command('agentls: Run…');
    await h.answerInput('rename Hello in cancel.go, then be cancelled');
    await h.tab('cancel.go (agentls proposal)').waitFor();
    await h.command('agentls: Cancel run');
    await h.quickRow('rename Hello in cancel.go').waitFor();
    await h.page.keyboard.press('Enter');
    const run = await h.endedRun('rename Hello in cancel.go, then be cancelled');
    assert.equal(run.end.reason, 'aborted');
    // The proposal closed with its run; its notification now says so when clicked.
    await h.tab('cancel.go (agentls proposal)').waitFor({ state: 'detached' });
    await h.clickNotification(/agentls: cancel\.go/, 'Accept');
    await h.notification(/already decided \(withdrawn by the server\)/).waitFor();
    assert.match(h.file('cancel.go'), /func Hello\(\)/);
    await h.notification(/agentls: stopped \(aborted\)/).waitFor();
  },
);

/** The scenarios of review mode diffEditor, the default. */
export const diffEditor = [accept, reject, conflict, hunks, cancel];

/** refactorPreview reviews in VS Code's Refactor Preview, then sets the review mode back to the diff editor. */
export const refactorPreview = scenario(
  'refactor preview: one item per hunk',
  {
    files: { 'preview.go': go('func A() {}\n\nfunc B() {}\n\nfunc C() {}\n') },
    turns: [
      call('replace', { file_path: 'preview.go', old_string: 'func A() {}\n\nfunc B() {}\n\nfunc C() {}', new_string: 'func Alpha() {}\n\nfunc B() {}\n\nfunc Gamma() {}' }),
      done('Renamed what the user ticked.'),
    ],
  },
  async (h) => {
    await h.chooseSetting('agentls.reviewMode', 'Review Mode', 'refactorPreview');
    await h.openFile('preview.go');
    await h.command('agentls: Run…');
    await h.answerInput('rename A and C in preview.go');
    // VS Code's own Refactor Preview: an item per hunk, whole lines, not
    // one per changed character.
    const items = h.page.locator('.monaco-list-row[aria-level="2"]', { has: h.page.locator('.edit-checkbox') });
    await items.first().waitFor();
    assert.deepEqual(await items.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label'))), [
      'line 3, replacing func A() {} with func Alpha() {}',
      'line 7, replacing func C() {} with func Gamma() {}',
    ]);
    await items.first().locator('.edit-checkbox').click();
    await h.page.locator('.monaco-button', { hasText: /^Apply$/ }).click();
    const run = await h.endedRun('rename A and C in preview.go');
    assert.match(Harness.toolResults(run, 'replace')[0], /accepted the change to preview\.go with modifications/);
    await waitFor('preview.go saved', () => h.file('preview.go') === go('func Alpha() {}\n\nfunc B() {}\n\nfunc C() {}\n'));

    // The scenarios after this one review in the diff editor, the default.
    await h.chooseSetting('agentls.reviewMode', 'Review Mode', 'diffEditor');
  },
);
