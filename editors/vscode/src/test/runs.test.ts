import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EventNotification } from '../events';
import type { RunInfo } from '../runs';
import { RunsTable, announcement, endMessage, progressMessage, runActions, runItem, runsStatus } from '../runs';

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

test('the end of a confirm: run run announces what became of its proposal', () => {
  const t = new RunsTable();
  const r = t.apply(
    ev({
      runId: 'main-9',
      type: 'run_end',
      end: { reason: 'goal', result: 'Renamed it.\nDetails.', turns: 2 },
      proposal: { outcome: 'rejected', summary: 'The change to main.go was rejected.' },
    }),
  );
  assert.ok(r);
  assert.equal(announcement(r), 'Renamed it. … — The change to main.go was rejected.');
  const plain = t.apply(ev({ runId: 'main-10', type: 'run_end', end: { reason: 'aborted', turns: 1 } }));
  assert.ok(plain);
  assert.equal(announcement(plain), 'stopped (aborted)');
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

test('the runs in a quick pick, with what Show runs offers for each', () => {
  const t = new RunsTable();
  t.started('main-1', 'rename Hello to Greet in accept.go', 's-1');
  t.apply(ev({ runId: 'main-1', sessionId: 's-1', type: 'turn_start', turn: 1 }));
  t.apply(ev({ runId: 'main-1', sessionId: 's-1', type: 'edit_proposed', turn: 1, edit: { path: '/w/accept.go', name: 'accept.go', added: 1, deleted: 1 } }));
  t.started('main-2', '');
  t.apply(ev({ runId: 'main-2', type: 'tool_call', turn: 1, call: { id: '1', name: 'glob', display: 'glob *.go' } }));
  t.apply(
    ev({
      runId: 'main-3',
      sessionId: 's-2',
      type: 'run_end',
      end: { reason: 'goal', result: 'Done.', turns: 2 },
      turn: 2,
      usage: { prompt: 1000, output: 10, thoughts: 0, cached: 0, cost: 0.0087 },
    }),
  );
  t.apply(ev({ runId: 'main-4', type: 'run_end', end: { reason: 'max_turns', turns: 100 }, turn: 100 }));
  const [waiting, working, failed, done] = ['main-1', 'main-2', 'main-4', 'main-3'].map((id) => {
    const r = t.get(id);
    assert.ok(r, id);
    return r;
  }) as [RunInfo, RunInfo, RunInfo, RunInfo];
  assert.deepEqual(runItem(waiting), {
    label: '$(eye) rename Hello to Greet in accept.go',
    description: 'main-1 · turn 1',
    detail: 'Proposing change to accept.go (+1 −1); waiting for your review',
    run: waiting,
  });
  assert.equal(runItem(working).label, '$(sync~spin) main-2', 'a run without a prompt goes by its id');
  assert.equal(runItem(failed).label, '$(warning) main-4');
  assert.equal(runItem(done).label, '$(check) main-3');
  assert.equal(runItem(done).description, 'main-3 · turn 2 · $0.0087');

  assert.deepEqual(runActions(waiting), ['Show transcript', 'Show conversation', 'Follow up…', 'Cancel run']);
  assert.deepEqual(runActions(working), ['Show transcript', 'Cancel run']);
  assert.deepEqual(runActions(done), ['Show transcript', 'Show conversation', 'Follow up…', 'Revert run']);
  assert.deepEqual(runActions(failed), ['Show transcript', 'Revert run']);
});

test('the status bar: the latest running run, then every running one in the tooltip', () => {
  assert.deepEqual(runsStatus([]), { text: '$(hubot) agentls', tooltip: 'agentls: no run is running. Click to show runs.' });
  const t = new RunsTable();
  t.started('main-1', 'rename Hello to Greet in accept.go');
  t.apply(ev({ runId: 'main-1', type: 'edit_proposed', edit: { path: '/w/accept.go', name: 'accept.go', added: 1, deleted: 1 } }));
  t.started('main-2', 'explain\nthe parser');
  t.apply(ev({ runId: 'main-2', type: 'thought', subject: 'Reading the parser' }));
  assert.deepEqual(runsStatus(t.running()), {
    text: '$(sync~spin) agentls 2: Reading the parser',
    tooltip: ['main-2: explain … — Reading the parser', 'main-1: rename Hello to Greet in accept.go — Proposing change to accept.go (+1 −1); waiting for your review'].join('\n'),
  });
  t.apply(ev({ runId: 'main-2', type: 'run_end', end: { reason: 'goal', turns: 1 } }));
  assert.equal(runsStatus(t.running()).text, '$(eye) agentls 1: Proposing change to accept.go (+1 −1); waiting fo…');
});
