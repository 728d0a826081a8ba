import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { commands } from '../contract';

// The language client registers each command the server executes as a VS
// Code command; an extension command with the same id makes the client's
// start fail ("command 'agentls.sessions' already exists"), so the server
// never runs.
test("the extension's commands never take a server command's id", () => {
  const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
    contributes: { commands: { command: string }[] };
  };
  const server = new Set<string>(Object.values(commands));
  assert.ok(server.has('agentls.run') && server.has('agentls.sessions'));
  const clashes = pkg.contributes.commands.map((c) => c.command).filter((id) => server.has(id));
  assert.deepEqual(clashes, []);
  const src = readFileSync(join(__dirname, '..', '..', 'src', 'extension.ts'), 'utf8') + readFileSync(join(__dirname, '..', '..', 'src', 'review.ts'), 'utf8');
  const registered = [...src.matchAll(/registerCommand\('([^']+)'/g)].map((m) => m[1] ?? '');
  assert.ok(registered.length > 5, 'no registerCommand found');
  assert.deepEqual(registered.filter((id) => server.has(id)), []);
});
