// Conversations and runs (issue 15): Follow up… and the session's cost in
// the status bar, Conversations… across a server restart, and Revert run
// from Show runs.

import assert from 'node:assert/strict';
import { waitFor } from '../lib/harness.mjs';
import { call, done, go, scenario } from '../lib/scenario.mjs';

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
const followUp = scenario(
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

const revert = scenario(
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

export const scenarios = [followUp, revert];
