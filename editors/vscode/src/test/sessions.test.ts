import assert from 'node:assert/strict';
import { test } from 'node:test';
import { conversation } from '../conversation';
import { type SessionInfo, addUsage, costLabel, currentOf, dollars, sessionAfterRun, sessionItem, sessionTooltip, statusText, usageLabel } from '../sessions';

test('dollars as the server writes them', () => {
  const cases: [number, string][] = [
    [0, '$0'],
    [1.234, '$1.23'],
    [0.1, '$0.10'],
    [0.0024, '$0.0024'],
    [0.002, '$0.002'],
    [0.0000123, '$0.000012'],
  ];
  for (const [v, want] of cases) {
    assert.equal(dollars(v), want, String(v));
  }
});

test('cost and usage labels', () => {
  const u = { prompt: 12000, output: 200, thoughts: 100, cached: 0, cost: 0.0207 };
  assert.equal(costLabel(u), '$0.021');
  assert.equal(usageLabel(u), '12.3k tokens, $0.021');
  assert.equal(costLabel({ prompt: 1, output: 1, thoughts: 0, cached: 0, unpriced: true }), 'cost unknown');
  assert.equal(costLabel({ prompt: 1, output: 1, thoughts: 0, cached: 0, cost: 0.5, unpriced: true }), '$0.50 + unpriced calls');
  assert.equal(costLabel(undefined), '');
  assert.deepEqual(addUsage(u, u), { prompt: 24000, output: 400, thoughts: 200, cached: 0, toolUse: 0, cost: 0.0414, unpriced: false });
});

const session: SessionInfo = {
  id: 's-5e6f7a8b',
  title: 'explain main.go',
  root: '/w',
  created: '2026-11-24T09:00:00Z',
  updated: '2026-11-24T09:10:00Z',
  runs: [
    {
      id: 'main-1',
      prompt: 'explain main.go',
      started: '2026-11-24T09:00:00Z',
      end: { reason: 'goal', result: 'It prints hi.', turns: 2 },
      usage: { prompt: 1000, output: 10, thoughts: 0, cached: 0, cost: 0.00159 },
      changes: 0,
    },
    {
      id: 'main-2',
      prompt: 'now make it say hello',
      started: '2026-11-24T09:05:00Z',
      end: { reason: 'goal', result: 'Done.', turns: 3 },
      usage: { prompt: 3000, output: 50, thoughts: 0, cached: 0, cost: 0.00495 },
      changes: 1,
      reverted: true,
    },
  ],
  usage: { prompt: 4000, output: 60, thoughts: 0, cached: 0, cost: 0.00654 },
};

test('a session in a quick pick and in the status bar', () => {
  assert.deepEqual(sessionItem(session), {
    label: 'explain main.go',
    description: 's-5e6f7a8b · 2 runs · $0.0065',
    detail: 'last: now make it say hello',
  });
  assert.equal(statusText({ id: session.id, title: session.title, runs: 2, usage: session.usage }), '$(comment-discussion) explain main.go · $0.0065');
});

test('a session reads as a conversation: the live transcript where there is one, the kept answer otherwise', () => {
  const text = conversation(session, (id) => (id === 'main-2' ? '  ✎ main.go: applied\n■ done after 3 turns:\n  Done.\n' : undefined));
  assert.equal(
    text,
    [
      'agentls conversation s-5e6f7a8b: explain main.go',
      '2 runs, 4.1k tokens, $0.0065',
      '',
      '▌ You (main-1):',
      '  explain main.go',
      '',
      '▌ agentls:',
      '  It prints hi.',
      '  (1.0k tokens, $0.0016)',
      '',
      '▌ You (main-2):',
      '  now make it say hello',
      '',
      '  ✎ main.go: applied',
      '■ done after 3 turns:',
      '  Done.',
      '  (1 change accepted; reverted; 3.0k tokens, $0.005)',
      '',
    ].join('\n'),
  );
});

test('the current session: picked from the list, followed up, or a new one', () => {
  const picked = currentOf(session);
  assert.deepEqual(picked, { id: 's-5e6f7a8b', title: 'explain main.go', runs: 2, usage: session.usage });
  assert.equal(sessionTooltip(picked), 'agentls conversation s-5e6f7a8b: explain main.go\nagentls: Follow up… continues it. Click for conversations.');
  // A follow-up of the current session: one run more, its cost so far kept.
  assert.deepEqual(sessionAfterRun(picked, 's-5e6f7a8b', 'and now?'), { ...picked, runs: 3 });
  assert.equal(picked.runs, 2, 'the session followed up is left as it was');
  // A run that started another session (Run…, or the server chose): named after its prompt.
  assert.deepEqual(sessionAfterRun(picked, 's-new', 'rename Hello to Greet\nin every file, and its tests too, and its docs'), {
    id: 's-new',
    title: 'rename Hello to Greet …',
    runs: 1,
  });
  assert.deepEqual(sessionAfterRun(undefined, 's-new', 'x'.repeat(70)), { id: 's-new', title: 'x'.repeat(59) + '…', runs: 1 });
});
