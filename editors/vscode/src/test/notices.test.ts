import assert from 'node:assert/strict';
import { test } from 'node:test';
import { revertNotice, runEndNotice, startFailure } from '../notices';
import { RunsTable } from '../runs';

test("a run's end: its outcome and cost; a run of a session can be followed up; a failure warns", () => {
  const t = new RunsTable();
  assert.equal(runEndNotice(t.started('main-1', 'rename it', 's-1')), undefined, 'a running run has no end to announce');
  const done = t.apply({
    runId: 'main-1',
    sessionId: 's-1',
    time: '',
    seq: 1,
    type: 'run_end',
    end: { reason: 'goal', result: 'Renamed Hello to Greet.', turns: 2 },
    usage: { prompt: 1000, output: 10, thoughts: 0, cached: 0, cost: 0.0087 },
  });
  assert.ok(done);
  assert.deepEqual(runEndNotice(done), {
    text: 'agentls: Renamed Hello to Greet. ($0.0087)',
    warn: false,
    actions: ['Show Transcript', 'Follow up…'],
  });
  const stopped = t.apply({ runId: 'main-2', time: '', seq: 1, type: 'run_end', end: { reason: 'aborted', turns: 1 } });
  assert.ok(stopped);
  assert.deepEqual(runEndNotice(stopped), { text: 'agentls: stopped (aborted)', warn: true, actions: ['Show Transcript'] });
});

test('a revert warns unless every file was reverted as it was', () => {
  const res = { runId: 'main-1', sessionId: 's-1', summary: 'Reverted run main-1: a.go reverted.', outcome: 'applied' as const };
  assert.deepEqual(revertNotice({ ...res, files: [{ name: 'a.go', outcome: 'reverted' }] }), {
    text: 'agentls: Reverted run main-1: a.go reverted.',
    warn: false,
    actions: [],
  });
  assert.equal(revertNotice({ ...res, files: [{ name: 'a.go', outcome: 'reverted', message: 'kept your line 3' }] }).warn, true);
  assert.equal(revertNotice({ ...res, outcome: 'rejected', files: [{ name: 'a.go', outcome: 'declined' }] }).warn, true);
  assert.equal(revertNotice({ ...res, summary: 'x'.repeat(400), files: [] }).text, `agentls: ${'x'.repeat(299)}…`);
});

test('a server that does not start: where to set agentls.path, locally and in a remote window', () => {
  assert.deepEqual(startFailure('agentls', undefined), {
    text: 'agentls: cannot start "agentls serve". Is agentls installed? See the setting agentls.path.',
    button: 'Open Settings',
    command: 'workbench.action.openSettings',
    query: 'agentls.path',
  });
  assert.deepEqual(startFailure('/nonexistent/agentls', 'ssh-remote'), {
    text: 'agentls: cannot start "/nonexistent/agentls serve". Is agentls installed? Set agentls.path in the Remote settings (ssh-remote): in a remote window, VS Code ignores it in the User settings.',
    button: 'Open Remote Settings',
    command: 'workbench.action.openRemoteSettings',
    query: 'agentls.path',
  });
});
