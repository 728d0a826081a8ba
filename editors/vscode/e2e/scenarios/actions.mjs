// The server's code actions and questions: Explain selection and a run
// from its answer, Refactor selection… with an instruction, and a shell
// command's approval.

import assert from 'node:assert/strict';
import { Harness } from '../lib/harness.mjs';
import { call, done, go, scenario } from '../lib/scenario.mjs';

const answer = 'Sum adds up xs and returns the total; an empty slice gives 0.';
const explain = scenario(
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

const refactor = scenario(
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

const shellApproval = scenario(
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

export const scenarios = [explain, refactor, shellApproval];
