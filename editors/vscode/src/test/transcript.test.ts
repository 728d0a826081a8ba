import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AgentEvent, RenderedEvent } from '../events';
import { Transcript, docPath, render, runIdOf, sessionIdOf, sessionKey } from '../transcript';

function ev(e: Partial<RenderedEvent> & Pick<AgentEvent, 'type'>): RenderedEvent {
  return { runId: 'main-1', time: '', ...e };
}

test('a run renders as a readable transcript', () => {
  const t = new Transcript();
  const events: AgentEvent[] = [
    ev({ type: 'run_start', text: 'fix the greeting' }),
    ev({ type: 'turn_start', turn: 1 }),
    ev({ type: 'thought', subject: 'Reading main.go', text: 'chunk 1' }),
    ev({ type: 'thought', subject: 'Reading main.go', text: 'chunk 2' }),
    ev({ type: 'text', text: 'I will ' }),
    ev({ type: 'text', text: 'fix it.' }),
    ev({ type: 'tool_call', call: { id: '1', name: 'read_file', args: { file_path: 'main.go' } } }),
    ev({ type: 'tool_result', call: { id: '1', name: 'read_file' }, result: { output: 'package main\nfunc main() {}' } }),
    ev({ type: 'usage', usage: { prompt: 1, output: 2, thoughts: 0, cached: 0 } }),
    ev({
      type: 'edit_proposed',
      call: { id: '2', name: 'replace' },
      edit: { path: '/w/main.go', name: 'main.go', added: 1, deleted: 1, diff: '--- main.go\n+++ main.go\n-a\n+b\n' },
    }),
    ev({ type: 'edit_decided', edit: { path: '/w/main.go', name: 'main.go', added: 1, deleted: 1, outcome: 'rejected', message: 'rejected by the user' } }),
    ev({ type: 'tool_call', call: { id: '3', name: 'complete_task', args: { result: 'x' } } }),
    ev({ type: 'turn_end', turn: 1 }),
    ev({ type: 'run_end', end: { reason: 'goal', result: 'Done.\nSecond line.', turns: 1 }, usage: { prompt: 10, output: 5, thoughts: 2, cached: 0 } }),
  ];
  let channel = '';
  for (const e of events) {
    channel += t.add(e);
  }
  const want = [
    '▶ run main-1: fix the greeting',
    '── turn 1',
    '  thinking: Reading main.go',
    'I will fix it.',
    '  → read_file {"file_path":"main.go"}',
    '  ← read_file: package main …',
    '  ✎ change to main.go (+1 −1)',
    '      --- main.go',
    '      +++ main.go',
    '      -a',
    '      +b',
    '  ✎ main.go: rejected (rejected by the user)',
    '■ done after 1 turn:',
    '  Done.',
    '  Second line.',
    '  tokens: 10 prompt, 5 output, 2 thoughts, 0 cached',
    '',
  ].join('\n');
  assert.equal(t.text('main-1'), want);
  assert.equal(channel, want);
});

test('the channel names the run when runs interleave', () => {
  const t = new Transcript();
  let channel = '';
  channel += t.add(ev({ runId: 'a', type: 'run_start', text: 'one' }));
  channel += t.add(ev({ runId: 'b', type: 'run_start', text: 'two' }));
  channel += t.add(ev({ runId: 'a', type: 'text', text: 'streaming' }));
  channel += t.add(ev({ runId: 'b', type: 'run_end', end: { reason: 'aborted', turns: 0 } }));
  assert.equal(channel, '▶ run a: one\n▶ run b: two\n[a]\nstreaming\n[b]\n■ stopped (aborted) after 0 turns\n');
  assert.equal(t.text('a'), '▶ run a: one\nstreaming');
  assert.equal(t.text('nope'), undefined);
  t.forget('a');
  assert.equal(t.text('a'), undefined);
});

test("a run's body is its transcript after its start, however many lines the prompt has", () => {
  const t = new Transcript();
  t.add(ev({ type: 'run_start', text: 'now fix it\n\nThis follows your earlier answer (Explain):\nSum is fine.' }));
  t.add(ev({ type: 'turn_start', turn: 1 }));
  t.add(ev({ type: 'run_end', end: { reason: 'goal', result: 'Fixed.', turns: 1 } }));
  assert.equal(t.body('main-1'), '── turn 1\n■ done after 1 turn:\n  Fixed.\n');
  assert.match(t.text('main-1') ?? '', /^▶ run main-1: now fix it\n\nThis follows/);
  assert.equal(t.body('nope'), undefined);
});

test('subagents show as one box of tool calls', () => {
  const t = new Transcript();
  const sub = { runId: 'sub-1', agent: 'codebase_investigator' };
  const lines = [
    t.add(ev({ type: 'subagent_start', subagent: { ...sub, task: 'find the parser' } })),
    t.add(ev({ type: 'subagent_activity', subagent: sub, inner: ev({ runId: 'sub-1', type: 'thought', subject: 'x' }) })),
    t.add(ev({ type: 'subagent_activity', subagent: sub, inner: ev({ runId: 'sub-1', type: 'tool_call', call: { id: '1', name: 'glob', display: 'glob **/*.go' } }) })),
    t.add(ev({ type: 'tool_call', runId: 'sub-1', parentRunId: 'main-1', call: { id: '1', name: 'glob' } })),
    t.add(ev({ type: 'subagent_end', subagent: { ...sub, end: { reason: 'goal', turns: 2 } } })),
  ];
  assert.deepEqual(lines, [
    // The first event of a run the channel has not named yet gets a header.
    '[main-1]\n  ⤷ subagent codebase_investigator: find the parser\n',
    '',
    '    codebase_investigator → glob **/*.go\n',
    '',
    '  ⤶ subagent codebase_investigator: goal\n',
  ]);
});

test('other event kinds', () => {
  const lines = (e: AgentEvent): string[] => {
    const b = render(e, {});
    return b.kind === 'lines' ? b.lines : [b.text];
  };
  assert.deepEqual(lines(ev({ type: 'approval_requested', approval: { tool: 'run_shell_command', command: 'go test ./...', dir: '/w' } })), [
    '  ? run_shell_command: go test ./... (in /w): waiting for approval',
  ]);
  assert.deepEqual(lines(ev({ type: 'approval_decided', approval: { tool: 'run_shell_command', command: 'go test ./...', allowed: false } })), [
    '  ? go test ./...: denied',
  ]);
  assert.deepEqual(lines(ev({ type: 'retry', retry: { attempt: 1, delayNs: 1_500_000_000, error: '429' } })), [
    '  … model call failed (attempt 1), retrying in 1.5s: 429',
  ]);
  assert.deepEqual(lines(ev({ type: 'compressed', compressed: { before: 9000, after: 2000, method: 'summary' } })), [
    '  … history compressed: 9000 → 2000 tokens (summary)',
  ]);
  assert.deepEqual(lines(ev({ type: 'model_routed', routed: { model: 'gemini-2.5-pro', reason: 'complex' } })), ['  … model gemini-2.5-pro: complex']);
  assert.deepEqual(
    lines(
      ev({
        type: 'tool_result',
        call: { id: '1', name: 'write_todos' },
        result: { display: 'plan updated' },
        todos: [
          { description: 'read', status: 'completed' },
          { description: 'fix', status: 'in_progress' },
          { description: 'test', status: 'pending' },
        ],
      }),
    ),
    ['  ← write_todos: plan updated', '    [x] read', '    [>] fix', '    [ ] test'],
  );
  assert.deepEqual(lines(ev({ type: 'tool_result', call: { id: '1', name: 'glob' }, result: { isError: true, output: 'bad pattern' } })), [
    '  ✗ glob: bad pattern',
  ]);
  assert.deepEqual(lines(ev({ type: 'run_end', end: { reason: 'max_turns', error: 'limit 3', turns: 3 } })), [
    '■ stopped (max_turns) after 3 turns: limit 3',
  ]);
});

test('with confirm: run, the transcript says what became of the proposal', () => {
  const b = render(
    ev({
      type: 'run_end',
      end: { reason: 'goal', result: 'Moved the constant.', turns: 3 },
      proposal: {
        outcome: 'applied',
        summary: 'Changes to 2 files applied; part of one rejected.',
        files: [
          { name: 'a.go', added: 0, deleted: 2, outcome: 'applied' },
          { name: 'greeting.go', create: true, added: 3, deleted: 0, outcome: 'applied', message: 'in part', rejectedHunks: [1] },
        ],
      },
    }),
    {},
  );
  assert.deepEqual(b, {
    kind: 'lines',
    lines: [
      '■ done after 3 turns:',
      '  Moved the constant.',
      '  ✎ Changes to 2 files applied; part of one rejected.',
      '    a.go: applied',
      '    greeting.go (new): applied (in part); rejected hunks 2',
    ],
  });
});

test("a transcript document's path names its run, a conversation's its session", () => {
  assert.equal(docPath('main-1'), '/main-1.log');
  assert.equal(sessionIdOf(docPath('main-1')), undefined);
  assert.equal(runIdOf(docPath('main-1')), 'main-1');
  assert.equal(docPath(sessionKey('s-5e6f7a8b')), '/session/s-5e6f7a8b.log');
  assert.equal(sessionIdOf(docPath(sessionKey('s-5e6f7a8b'))), 's-5e6f7a8b');
});
