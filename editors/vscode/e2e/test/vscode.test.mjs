// The agentls extension in a real VS Code (code-server), driven as a user
// drives it. The model is the in-repo fake Gemini server: each scenario
// adds its turns to one script, played in order, so the scenarios run in
// order and stop at the first failure. E2E_ONLY=name,name runs some of
// them (with only their turns).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Harness, start, waitFor } from '../lib/harness.mjs';

const go = (body) => `package main\n\n${body}`;

/** The scenarios, in the order they run. */
const scenarios = [];
function scenario(name, { files = {}, turns = [] }, run) {
  scenarios.push({ name, files, turns, run });
}

const call = (name, args) => `call ${name} ${JSON.stringify(args)}`;
const done = (result) => call('complete_task', { result });

scenario('activate', {}, async (h) => {
  // The extension is active and its server runs: agentls.path came from the
  // Machine settings, the only place a remote window reads it.
  await h.statusItem().waitFor();
  await waitFor('agentls serve, started from agentls.path', () => h.serverRunning());
  assert.equal(await h.notificationCount(/cannot start/), 0, 'the server did not start');
  await h.command('agentls: Show runs');
  await h.notification(/no runs yet/).waitFor();
});

scenario(
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

scenario(
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

scenario(
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
    assert.match(told, /conflict: stale\.go changed since you read it; read it again/);
    assert.doesNotMatch(told, /rejected/);
  },
);

scenario(
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

scenario(
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

const answer = 'Sum adds up xs and returns the total; an empty slice gives 0.';
scenario(
  'explain, then "now fix it" from the answer',
  {
    files: { 'explain.go': go('// Sum adds up xs.\nfunc Sum(xs []int) int {\n\tt := 0\n\tfor _, x := range xs {\n\t\tt += x\n\t}\n\treturn t\n}\n') },
    turns: [done(answer), done('Nothing to fix: Sum is right.')],
  },
  async (h) => {
    await h.openFile('explain.go');
    await h.selectLines(4, 10);
    await h.codeAction('Agent: Explain selection');
    // The answer opens as a Markdown document, and shows once as a notification.
    const explain = await h.endedRun('Explain what the selected code does');
    assert.equal(explain.end.reason, 'goal');
    await h.answerShown(explain);
    await h.notification(new RegExp(answer.slice(0, 30))).waitFor();
    assert.equal(await h.notificationCount(new RegExp(answer.slice(0, 30))), 1, 'the answer was shown twice');

    // From the answer's document (outside the workspace), Run… works on what it answered.
    await h.command('agentls: Run…');
    const q = await h.quickInput((x) => x.message !== '');
    assert.match(q.message, /Context: the workspace \(main-.*\.md is outside it\)/);
    await h.answerInput('now fix it');
    const fix = await h.endedRun('now fix it');
    assert.equal(fix.end.reason, 'goal');
    assert.equal(fix.header.task.file, 'explain.go');
    // It continues the explanation's session: its model has the answer.
    assert.ok(explain.header.session, 'the explain run has a session');
    assert.equal(fix.header.session, explain.header.session);
    assert.match(fix.header.task.selection.text, /func Sum/);
    await h.answerShown(fix); // a text answer too: its document opens
  },
);

scenario(
  'refactor with an instruction',
  {
    files: { 'refactor.go': go('func Total(xs []int) int {\n\tt := 0\n\tfor i := 0; i < len(xs); i++ {\n\t\tt += xs[i]\n\t}\n\treturn t\n}\n') },
    turns: [done('Kept it as it is.')],
  },
  async (h) => {
    await h.openFile('refactor.go');
    await h.selectLines(3, 9);
    await h.codeAction('Agent: Refactor selection…');
    const q = await h.quickInput((x) => /Refactor/.test(x.title));
    assert.match(q.message, /How should the agent change the selection/);
    await h.answerInput('use a range loop');
    const run = await h.endedRun('use a range loop');
    assert.equal(run.end.reason, 'goal');
    assert.match(run.header.task.selection.text, /func Total/);
  },
);

scenario(
  'shell approval',
  {
    turns: [call('run_shell_command', { command: 'echo agentls-e2e-marker', description: 'prints a marker' }), done('Printed the marker.')],
  },
  async (h) => {
    await h.command('agentls: Run…');
    await h.answerInput('print the e2e marker');
    // The approval's answers are long: a quick pick shows them whole.
    const q = await h.quickInput((x) => /echo agentls-e2e-marker/.test(x.title) && x.rows.length > 0);
    assert.deepEqual(q.rows, [
      'Allow once',
      'Always allow `echo agentls-e2e-marker`',
      'Always allow `echo agentls-e2e-marker` in this workspace (save)',
      'Deny',
    ]);
    await h.page.keyboard.press('Enter'); // the first: Allow once
    const run = await h.endedRun('print the e2e marker');
    assert.match(Harness.toolResults(run, 'run_shell_command')[0], /agentls-e2e-marker/);
    assert.equal(run.end.reason, 'goal');
    await h.answerShown(run);
  },
);

scenario(
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

// ---- the editor's diagnostics (issue 16) ----

/** toolResultSent is the output of the first function response named name that the model was sent about file. */
function toolResultSent(h, name, file) {
  for (const r of h.requests()) {
    for (const c of r.contents) {
      for (const p of c.parts ?? []) {
        const out = p.functionResponse?.name === name ? (p.functionResponse.response?.output ?? '') : '';
        if (out.includes(file)) {
          return out;
        }
      }
    }
  }
  return undefined;
}

scenario(
  'a JSON syntax error the change causes reaches the model',
  {
    files: { 'broken.json': '{\n  "name": "e2e",\n  "port": 80\n}\n' },
    turns: [
      call('replace', { file_path: 'broken.json', old_string: '"port": 80', new_string: '"port": 80\n  "debug": true' }),
      done('Added the flag.'),
    ],
  },
  async (h) => {
    await h.openFile('broken.json');
    await h.command('agentls: Run…');
    await h.answerInput('add a debug flag to broken.json');
    await h.tab('broken.json (agentls proposal)').waitFor();
    await h.clickNotification(/agentls: broken\.json/, 'Accept');
    await h.endedRun('add a debug flag to broken.json');
    // VS Code's JSON language features report the missing comma; the
    // model's next request carries it in the tool result, with its line.
    const told = toolResultSent(h, 'replace', 'broken.json');
    assert.ok(told, 'the model was not sent the tool result');
    assert.match(told, /The user accepted the change; broken\.json is updated/);
    assert.match(told, /The editor shows new problems since the change:\n[^]*broken\.json[^]*error[^]*Expected comma/);
    assert.match(told, /4 \|\s+"debug": true/);
    assert.doesNotMatch(told, /had not reported/);
  },
);

scenario(
  'a clean JSON file that stays clean',
  {
    files: { 'clean.json': '{\n  "retries": 1\n}\n' },
    turns: [call('replace', { file_path: 'clean.json', old_string: '"retries": 1', new_string: '"retries": 2' }), done('Raised it.')],
  },
  async (h) => {
    await h.openFile('clean.json');
    await h.command('agentls: Run…');
    await h.answerInput('raise the retries in clean.json');
    await h.tab('clean.json (agentls proposal)').waitFor();
    await h.clickNotification(/agentls: clean\.json/, 'Accept');
    await h.endedRun('raise the retries in clean.json');
    // The JSON language features report every version, an empty list
    // again included (VS Code tells an extension of every list set in its
    // extension host, unchanged or not): the model hears that nothing broke.
    const told = toolResultSent(h, 'replace', 'clean.json');
    assert.match(told, /The user accepted the change; clean\.json is updated/);
    assert.match(told, /The editor shows no new problems\./);
  },
);

// ---- conversations (issue 15) ----

/** The first model request whose newest content (the task) has text. */
function firstRequestFor(h, text) {
  return h.requests().find((r) => JSON.stringify(r.contents.at(-1) ?? {}).includes(text));
}

/** history is a request's conversation before its newest content, as JSON. */
function history(req) {
  return JSON.stringify(req.contents.slice(0, -1));
}

/** shownCost is the dollar amount in a label ("… · $0.0087"). */
function shownCost(label) {
  const m = /\$(\d+(?:\.\d+)?)/.exec(label);
  assert.ok(m, `no cost in "${label}"`);
  return Number(m[1]);
}

/** assertCost checks a cost shown to the user against the runs' costs, to the digits it shows. */
function assertCost(label, runs) {
  const want = runs.reduce((sum, r) => sum + (r.usage?.cost ?? 0), 0);
  assert.ok(want > 0, 'the runs have no cost');
  const got = shownCost(label);
  assert.ok(Math.abs(got - want) <= want * 0.05, `"${label}" shows $${got}, the runs cost $${want}`);
}

/** runEnd is a run's run_end event (its usage with its cost). */
function runEnd(run) {
  return run.events.find((e) => e.type === 'run_end');
}

const hello = 'Hello from the first run.';
const goodbye = 'Goodbye from the follow-up.';
scenario(
  'follow up: the same conversation, its cost in the status bar',
  { turns: [done(hello), done(goodbye), done('Third time.')] },
  async (h) => {
    await h.command('agentls: Run…');
    await h.answerInput('say hello and wait');
    const first = await h.endedRun('say hello and wait');
    await h.answerShown(first);
    // The status bar shows the conversation, with what it cost so far.
    const item = h.sessionItem();
    await waitFor('the session in the status bar', async () => /say hello and wait · \$/.test(await item.textContent()));
    assertCost(await item.textContent(), [runEnd(first)]);

    await h.command('agentls: Follow up…');
    const q = await h.quickInput((x) => /Follow up/.test(x.title));
    assert.match(q.title, /Follow up — say hello and wait/);
    assert.match(q.message, /The agent sees the conversation so far/);
    await h.answerInput('now say goodbye');
    const second = await h.endedRun('now say goodbye');
    assert.equal(second.header.session, first.header.session);
    // The model's first request of the follow-up carries the first run's turns.
    const req = firstRequestFor(h, 'now say goodbye');
    assert.ok(req, 'no request for the follow-up');
    for (const want of ['say hello and wait', hello]) {
      assert.ok(history(req).includes(want), `the follow-up's conversation lacks "${want}": ${history(req)}`);
    }
    // Asked from the answer's document: the task does not quote the answer
    // its conversation already holds.
    assert.doesNotMatch(JSON.stringify(req.contents.at(-1)), /earlier answer/);
    await waitFor('the status bar to add the follow-up', async () => {
      const label = await item.textContent();
      assertCost(label, [runEnd(first), runEnd(second)]);
      return true;
    });

    // After a server restart (a new process), the conversation is listed
    // and continues with its whole history.
    await h.command('agentls: Restart server');
    await waitFor('agentls serve again', () => h.serverRunning());
    await h.command('agentls: Conversations…');
    const list = await h.quickInput((x) => x.title === 'agentls: Conversations' && x.rows.length > 0);
    assert.equal(list.placeholder, 'Conversations, the latest first', 'sessions are not kept on disk');
    const at = list.rows.indexOf('say hello and wait');
    assert.ok(at >= 0, `the conversation is not listed: ${JSON.stringify(list.rows)}`);
    assert.match(list.descriptions[at], new RegExp(`^${first.header.session} · 2 runs · \\$`));
    assertCost(list.descriptions[at], [runEnd(first), runEnd(second)]);
    await h.quickRow('say hello and wait').click();
    await h.quickInput((x) => x.rows.includes('Follow up…'));
    await h.quickRow('Follow up…').click();
    await h.quickInput((x) => /Follow up/.test(x.title));
    await h.answerInput('and once more');
    const third = await h.endedRun('and once more');
    assert.equal(third.header.session, first.header.session);
    const again = firstRequestFor(h, 'and once more');
    for (const want of ['say hello and wait', hello, 'now say goodbye', goodbye]) {
      assert.ok(history(again).includes(want), `after the restart, the conversation lacks "${want}": ${history(again)}`);
    }

    // Show conversation: the three runs as turns of one conversation.
    await h.command('agentls: Conversations…');
    await h.quickInput((x) => x.rows.includes('say hello and wait'));
    await h.quickRow('say hello and wait').click();
    await h.quickInput((x) => x.rows.includes('Show conversation'));
    await h.quickRow('Show conversation').click();
    await h.activeTab(`${first.header.session}.log`).waitFor();
    await h.command('View: Hide Panel'); // the whole conversation in view
    const text = await waitFor('the conversation', async () => {
      const t = await h.editorText();
      return t.includes('Third time.') ? t : undefined;
    });
    assert.match(text, new RegExp(`^agentls conversation ${first.header.session}: say hello and wait\n3 runs, `));
    const order = [`▌ You (${first.header.runId}):`, 'say hello and wait', hello, `▌ You (${second.header.runId}):`, goodbye, `▌ You (${third.header.runId}):`, 'Third time.'];
    let pos = -1;
    for (const want of order) {
      const next = text.indexOf(want, pos + 1);
      assert.ok(next > pos, `the conversation lacks "${want}" after position ${pos}:\n${text}`);
      pos = next;
    }
  },
);

scenario(
  'revert a run from Show runs, keeping what the user typed since',
  {
    files: { 'revert.go': go('func A() {}\n\nfunc Other() {}\n') },
    turns: [call('replace', { file_path: 'revert.go', old_string: 'func A() {}', new_string: 'func Alpha() {}' }), done('Renamed A to Alpha.')],
  },
  async (h) => {
    await h.openFile('revert.go');
    await h.command('agentls: Run…');
    await h.answerInput('rename A to Alpha in revert.go');
    await h.tab('revert.go (agentls proposal)').waitFor();
    await h.clickNotification(/agentls: revert\.go/, 'Accept');
    await h.tab('revert.go (agentls proposal)').waitFor({ state: 'detached' });
    const run = await h.endedRun('rename A to Alpha in revert.go');
    await waitFor('revert.go saved', () => h.file('revert.go').includes('func Alpha()'));
    // The user changes another line since, and leaves it unsaved.
    await h.focusTab('revert.go');
    await h.typeAtEnd(5, ' // mine');
    await h.clearNotifications();

    // Show runs lists the run with its cost; Revert run proposes the undo.
    await h.command('agentls: Show runs');
    const runs = await h.quickInput((x) => x.title === 'agentls: Runs' && x.rows.length > 0);
    const at = runs.rows.findIndex((r) => r.includes('rename A to Alpha in revert.go'));
    assert.ok(at >= 0, `the run is not listed: ${JSON.stringify(runs.rows)}`);
    assert.match(runs.descriptions[at], new RegExp(`^${run.header.runId} · turn 2 · \\$`));
    assertCost(runs.descriptions[at], [runEnd(run)]);
    await h.quickRow('rename A to Alpha in revert.go').click();
    await h.quickInput((x) => x.rows.includes('Revert run'));
    await h.quickRow('Revert run').click();
    await h.tab('revert.go (agentls proposal)').waitFor();
    await h.clickNotification(/agentls: revert\.go.*\(1 hunk\)/, 'Accept');
    await h.notification(new RegExp(`agentls: Reverted run ${run.header.runId}: revert\\.go reverted`)).waitFor();
    await waitFor('revert.go reverted and saved', () => h.file('revert.go') === go('func A() {}\n\nfunc Other() {} // mine\n'));
  },
);

scenario('a bad agentls.path in a remote window', {}, async (h) => {
  h.setMachineSettings({ 'agentls.path': '/nonexistent/agentls' });
  await h.clickNotification(/agentls\.path changed/, 'Restart');
  const err = h.notification(/cannot start "\/nonexistent\/agentls serve"/);
  await err.waitFor();
  assert.match(await err.textContent(), /Remote settings/);
  await err.locator('.monaco-button', { hasText: 'Open Remote Settings' }).click();
  // The Remote settings, at agentls.path, showing the value in force: not
  // a User settings tab that says "No Settings Found".
  const editor = h.page.locator('.settings-editor');
  await editor.waitFor();
  await editor.locator('.settings-tabs-widget .action-label.checked', { hasText: 'Remote' }).waitFor();
  const item = editor.locator('.setting-item-contents', { hasText: 'Agentls: Path' }).first();
  await item.waitFor();
  assert.equal(await item.locator('input').inputValue(), '/nonexistent/agentls');
});

// ---- running them ----

const only = (process.env.E2E_ONLY ?? '').split(',').filter(Boolean);
const chosen = scenarios.filter((s) => only.length === 0 || only.some((o) => s.name.includes(o)));
let h;
let failed = false;

before(async () => {
  const files = Object.assign({}, ...chosen.map((s) => s.files));
  const script = chosen.flatMap((s) => s.turns).join('\n---\n') || done('unused');
  h = await start({ script, files });
});

after(async () => {
  await h?.stop({ keep: failed || process.env.E2E_KEEP === '1' });
});

for (const s of chosen) {
  test(s.name, async (t) => {
    if (failed) {
      t.skip('an earlier scenario failed (the model turns are one script)');
      return;
    }
    const began = Date.now();
    try {
      await h.clearNotifications();
      await s.run(h);
    } catch (err) {
      failed = true;
      const shot = await h.screenshot(s.name);
      err.message += `\nscreenshot: ${shot}`;
      throw err;
    } finally {
      t.diagnostic(`${s.name}: ${((Date.now() - began) / 1000).toFixed(1)}s`);
    }
  });
}
