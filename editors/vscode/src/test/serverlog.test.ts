import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseLogLine } from '../serverlog';

test('slog lines keep their level, without the time', () => {
  assert.deepEqual(parseLogLine('time=2026-11-24T02:06:48.309Z level=INFO msg="run ended" run=main-1 reason=goal turns=2'), {
    level: 'info',
    text: 'run ended run=main-1 reason=goal turns=2',
  });
  assert.deepEqual(parseLogLine('time=2026-11-24T02:06:48Z level=DEBUG msg=genai:'), { level: 'debug', text: 'genai:' });
  assert.deepEqual(parseLogLine('time=2026-11-24T02:06:48Z level=WARN msg="the buffer \\"x\\" differs" file=a.go'), {
    level: 'warn',
    text: 'the buffer "x" differs file=a.go',
  });
  assert.deepEqual(parseLogLine('time=t level=ERROR msg=boom err="x"'), { level: 'error', text: 'boom err="x"' });
  assert.equal(parseLogLine('time=t level=INFO+2 msg=odd').level, 'info');
});

test('other lines are errors, as they are', () => {
  assert.deepEqual(parseLogLine('panic: runtime error'), { level: 'error', text: 'panic: runtime error' });
  assert.deepEqual(parseLogLine('agentls: serve: bad flag'), { level: 'error', text: 'agentls: serve: bad flag' });
});
