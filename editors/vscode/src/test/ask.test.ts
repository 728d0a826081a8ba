import assert from 'node:assert/strict';
import { test } from 'node:test';
import { asksForInstruction, fitsNotification, splitQuestion, withInstruction } from '../ask';

test('short answers fit a notification, an approval\'s do not', () => {
  assert.ok(fitsNotification(['Accept', 'Reject']));
  assert.ok(fitsNotification(['Apply', 'Reject', 'Show diff']));
  assert.ok(fitsNotification(['Allow once', 'Deny']));
  assert.ok(!fitsNotification(['Allow once', 'Always allow `go test`', 'Always allow `go test` in this workspace (save)', 'Deny']));
  assert.ok(!fitsNotification(['Allow once', 'Always allow `rm`', 'Deny']));
  assert.ok(!fitsNotification(['a', 'b', 'c', 'd']));
});

test('a refactor action asks for an instruction; the answer goes in its argument', () => {
  const arg: unknown = { prompt: 'Refactor ${selection}: ${instruction}', ask: 'instruction', title: 'Refactor selection', action: 'refactor' };
  assert.ok(asksForInstruction(arg));
  assert.deepEqual(withInstruction(arg, '  rename x to count '), {
    prompt: 'Refactor ${selection}: ${instruction}',
    title: 'Refactor selection',
    action: 'refactor',
    instruction: 'rename x to count',
  });
  assert.deepEqual(withInstruction(arg, ''), { prompt: 'Refactor ${selection}: ${instruction}', title: 'Refactor selection', action: 'refactor' });
  assert.ok(!asksForInstruction({ prompt: 'Explain' }));
  assert.ok(!asksForInstruction(undefined));
  assert.ok(!asksForInstruction('instruction'));
});

test('a question splits into a title and its detail', () => {
  assert.deepEqual(splitQuestion('Run `go test ./...` in /w?\nRuns the tests.\n  Twice.'), {
    title: 'Run `go test ./...` in /w?',
    detail: 'Runs the tests. Twice.',
  });
  assert.deepEqual(splitQuestion('Apply?'), { title: 'Apply?', detail: '' });
});
