import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Refresher, refreshMs } from '../refresh';
import { FakeTimers } from './faketimers';

test('a burst of touches is one refresh per document, after the delay', () => {
  const timers = new FakeTimers();
  const fired: string[] = [];
  const r = new Refresher((k) => fired.push(k), refreshMs, timers);
  r.touch('main-1');
  r.touch('main-1');
  r.touch('session/s-1');
  r.touch('main-1');
  assert.deepEqual(fired, []);
  assert.deepEqual([...timers.pending.values()].map((t) => t.ms), [250, 250]);
  timers.fire();
  assert.deepEqual(fired, ['main-1', 'session/s-1']);
  // Once fired, the next touch schedules again.
  r.touch('main-1');
  assert.equal(timers.pending.size, 1);
  timers.fire();
  assert.deepEqual(fired, ['main-1', 'session/s-1', 'main-1']);
});

test('dispose cancels the scheduled refreshes', () => {
  const timers = new FakeTimers();
  const fired: string[] = [];
  const r = new Refresher((k) => fired.push(k), refreshMs, timers);
  r.touch('main-1');
  r.touch('main-2');
  r.dispose();
  assert.equal(timers.pending.size, 0);
  timers.fire();
  assert.deepEqual(fired, []);
});
