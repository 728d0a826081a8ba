import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EventNotification } from '../events';
import { RunsTable, endMessage, progressMessage } from '../runs';

let seq = 0;
function ev(e: Partial<EventNotification> & Pick<EventNotification, 'type'>): EventNotification {
  return { runId: 'main-1', time: '2025-01-01T00:00:00Z', seq: ++seq, ...e };
}

test('a run from start to end', () => {
  const t = new RunsTable(() => 42);
  t.started('main-1', 'fix it');
  assert.equal(t.running().length, 1);
  t.apply(ev({ type: 'run_start', text: 'fix the parser' }));
  t.apply(ev({ type: 'turn_start', turn: 1 }));
  t.apply(ev({ type: 'thought', turn: 1, subject: 'Reading the parser' }));
  const r = t.get('main-1');
  assert.ok(r);
  assert.equal(r.prompt, 'fix the parser');
  assert.equal(r.message, 'Reading the parser');
  assert.equal(r.turn, 1);
  assert.equal(r.started, 42);

  t.apply(ev({ type: 'edit_proposed', turn: 2, edit: { path: '/w/p.go', name: 'p.go', added: 3, deleted: 1 } }));
  assert.equal(r.waiting, true);
  assert.equal(r.turn, 2);
  assert.equal(r.message, 'Proposing change to p.go (+3 −1); waiting for your review');
  t.apply(ev({ type: 'edit_decided', edit: { path: '/w/p.go', name: 'p.go', added: 3, deleted: 1, outcome: 'applied' } }));
  assert.equal(t.get('main-1')?.waiting, false);
  assert.equal(t.get('main-1')?.message, 'Change to p.go applied');

  t.apply(ev({ type: 'run_end', end: { reason: 'goal', result: 'Fixed.', turns: 2 } }));
  assert.equal(t.running().length, 0);
  assert.equal(t.get('main-1')?.message, 'Fixed.');
  assert.deepEqual(t.get('main-1')?.end, { reason: 'goal', result: 'Fixed.', turns: 2 });
});

test('subagent events and repeated sequence numbers are ignored', () => {
  const t = new RunsTable();
  const first = ev({ type: 'run_start', text: 'x' });
  assert.ok(t.apply(first));
  assert.equal(t.apply(first), undefined);
  assert.equal(t.apply(ev({ type: 'tool_call', runId: 'sub-1', parentRunId: 'main-1', call: { id: '1', name: 'glob' } })), undefined);
  assert.equal(t.get('sub-1'), undefined);
  t.apply(
    ev({
      type: 'subagent_activity',
      subagent: { runId: 'sub-1', agent: 'codebase_investigator' },
      inner: { type: 'tool_call', runId: 'sub-1', time: '', call: { id: '1', name: 'glob', display: 'glob **/*.go' } },
    }),
  );
  assert.equal(t.get('main-1')?.message, 'codebase_investigator: glob **/*.go');
});

test('the most recently active run comes first; stopAll and prune', () => {
  const t = new RunsTable();
  t.apply(ev({ runId: 'a', type: 'run_start' }));
  t.apply(ev({ runId: 'b', type: 'run_start' }));
  t.apply(ev({ runId: 'a', type: 'tool_call', call: { id: '1', name: 'read_file' } }));
  assert.deepEqual(t.running().map((r) => r.id), ['a', 'b']);
  assert.equal(t.latest()?.message, 'Calling read_file');
  t.apply(ev({ runId: 'c', type: 'run_end' }));
  assert.equal(t.get('c')?.end?.reason, 'error');
  const stopped = t.stopAll('server gone');
  assert.deepEqual(stopped.map((r) => r.id).sort(), ['a', 'b']);
  assert.equal(t.get('a')?.message, 'stopped (error): server gone');
  assert.deepEqual(t.prune(1).length, 2);
  assert.equal(t.all().length, 1);
});

test('progress messages', () => {
  assert.equal(progressMessage(ev({ type: 'tool_call', call: { id: '1', name: 'complete_task' } })), 'Finishing');
  assert.equal(progressMessage(ev({ type: 'text', text: 'hi' })), '');
  assert.equal(endMessage({ reason: 'timeout', error: 'after 5m', turns: 3 }), 'stopped (timeout): after 5m');
  assert.equal(endMessage({ reason: 'goal', turns: 1 }), 'done');
});

test('a run keeps its session and, at its end, what it cost', () => {
  const t = new RunsTable();
  t.started('main-7', 'explain', 's-1');
  t.apply(ev({ runId: 'main-7', sessionId: 's-1', type: 'run_start', text: 'explain' }));
  const usage = { prompt: 1200, output: 30, thoughts: 250, cached: 800, cost: 0.0033 };
  t.apply(ev({ runId: 'main-7', sessionId: 's-1', type: 'run_end', end: { reason: 'goal', result: 'ok', turns: 1 }, usage }));
  const r = t.get('main-7');
  assert.ok(r);
  assert.equal(r.sessionId, 's-1');
  assert.deepEqual(r.usage, usage);
  assert.deepEqual(t.inSession('s-1').map((x) => x.id), ['main-7']);
  assert.deepEqual(t.inSession('s-2'), []);
});
