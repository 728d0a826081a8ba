// The editor's diagnostics (issue 16): the problems VS Code reports after an
// accepted change reach the model in the tool result.

import assert from 'node:assert/strict';
import { call, done, scenario } from '../lib/scenario.mjs';

/** toolResultSent is the output of the first function response named name that the model was sent about file. */
function toolResultSent(h, name, file) {
  for (const r of h.requests()) {
    for (const c of r.contents) {
      for (const p of c.parts ?? []) {
        const out = p.functionResponse?.name === name ? (p.functionResponse.response?.output ?? '') : '';
        if (out.includes(file)) {
          return out;
        }
      }
    }
  }
  return undefined;
}

const jsonError = scenario(
  'a JSON syntax error the change causes reaches the model',
  {
    files: { 'broken.json': '{\n  "name": "e2e",\n  "port": 80\n}\n' },
    turns: [
      call('replace', { file_path: 'broken.json', old_string: '"port": 80', new_string: '"port": 80\n  "debug": true' }),
      done('Added the flag.'),
    ],
  },
  async (h) => {
    await h.openFile('broken.json');
    await h.command('agentls: Run…');
    await h.answerInput('add a debug flag to broken.json');
    await h.tab('broken.json (agentls proposal)').waitFor();
    await h.clickNotification(/agentls: broken\.json/, 'Accept');
    await h.endedRun('add a debug flag to broken.json');
    // VS Code's JSON language features report the missing comma; the
    // model's next request carries it in the tool result, with its line.
    const told = toolResultSent(h, 'replace', 'broken.json');
    assert.ok(told, 'the model was not sent the tool result');
    assert.match(told, /The user accepted the change; broken\.json is updated/);
    assert.match(told, /The editor shows new problems since the change:\n[^]*broken\.json[^]*error[^]*Expected comma/);
    assert.match(told, /4 \|\s+"debug": true/);
    assert.doesNotMatch(told, /had not reported/);
  },
);

const cleanJson = scenario(
  'a clean JSON file that stays clean',
  {
    files: { 'clean.json': '{\n  "retries": 1\n}\n' },
    turns: [call('replace', { file_path: 'clean.json', old_string: '"retries": 1', new_string: '"retries": 2' }), done('Raised it.')],
  },
  async (h) => {
    await h.openFile('clean.json');
    await h.command('agentls: Run…');
    await h.answerInput('raise the retries in clean.json');
    await h.tab('clean.json (agentls proposal)').waitFor();
    await h.clickNotification(/agentls: clean\.json/, 'Accept');
    await h.endedRun('raise the retries in clean.json');
    // The JSON language features report every version, an empty list
    // again included (VS Code tells an extension of every list set in its
    // extension host, unchanged or not): the model hears that nothing broke.
    const told = toolResultSent(h, 'replace', 'clean.json');
    assert.match(told, /The user accepted the change; clean\.json is updated/);
    assert.match(told, /The editor shows no new problems\./);
  },
);

export const scenarios = [jsonError, cleanJson];
