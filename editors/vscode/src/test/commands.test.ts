import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { commands } from '../contract';

const root = join(__dirname, '..', '..');

/** registered lists the command ids the extension's sources register. */
function registered(): string[] {
  const dir = join(root, 'src');
  const src = readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('\n');
  return [...src.matchAll(/registerCommand\('([^']+)'/g)].map((m) => m[1] ?? '');
}

function contributed(): string[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    contributes: { commands: { command: string }[] };
  };
  return pkg.contributes.commands.map((c) => c.command);
}

// The language client registers each command the server executes as a VS
// Code command; an extension command with the same id makes the client's
// start fail ("command 'agentls.sessions' already exists"), so the server
// never runs.
test("the extension's commands never take a server command's id", () => {
  const server = new Set<string>(Object.values(commands));
  assert.ok(server.has('agentls.run') && server.has('agentls.sessions'));
  assert.deepEqual(contributed().filter((id) => server.has(id)), []);
  const ids = registered();
  assert.ok(ids.length > 5, 'no registerCommand found');
  assert.deepEqual(ids.filter((id) => server.has(id)), []);
});

// A command package.json lists but nothing registers fails when picked; one
// registered but not listed is missing from the command palette.
test('every command the extension contributes is registered, once', () => {
  assert.deepEqual([...registered()].sort(), [...contributed()].sort());
});
