import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TextEdit, WorkspaceEdit } from 'vscode-languageclient';
import { choosable, hunkChoices, keptLabel, keptOf } from '../hunkchoice';
import { computeProposal } from '../proposal';

function edit(sl: number, sc: number, el: number, ec: number, newText: string): TextEdit {
  return { range: { start: { line: sl, character: sc }, end: { line: el, character: ec } }, newText };
}

// Three hunks in main.go (the second empties a line), and a new file of one.
const before = 'package main\n\nfunc A() {}\n\nfunc B() {}\n\nfunc C() {}\n';
const uri = 'file:///w/main.go';
const newUri = 'file:///w/new.go';
const edits: WorkspaceEdit = {
  documentChanges: [
    { textDocument: { uri, version: 4 }, edits: [edit(2, 0, 2, 11, 'func Alpha() {}'), edit(4, 0, 4, 11, ''), edit(6, 0, 6, 11, 'func Gamma() {}\n\n// Gamma is new.')] },
    { kind: 'create', uri: newUri, options: { overwrite: false, ignoreIfExists: false } },
    { textDocument: { uri: newUri, version: null }, edits: [edit(0, 0, 0, 0, 'package main\n')] },
  ],
};
const files = computeProposal(edits, () => before);
const [main, created] = files;
const name = (u: string) => u.replace('file:///w/', '');

test('the hunks in the quick pick: each with its line and first new line, ticked when kept', () => {
  assert.ok(main && created);
  const kept = new Map([[uri, [true, false, true]]]);
  assert.deepEqual(hunkChoices(files, kept, name), [
    { label: 'main.go: hunk 1 of 3', description: 'line 3', detail: 'func Alpha() {}', picked: true, uri, index: 0 },
    { label: 'main.go: hunk 2 of 3', description: 'line 5', detail: '(removes lines)', picked: false, uri, index: 1 },
    { label: 'main.go: hunk 3 of 3', description: 'line 7', detail: 'func Gamma() {}', picked: true, uri, index: 2 },
    { label: 'new.go: hunk 1 of 1', description: 'line 1', detail: 'package main', picked: true, uri: newUri, index: 0 },
  ]);
});

test('a pick keeps the picked hunks of each file, and the notification counts them', () => {
  const none = new Map<string, boolean[]>();
  assert.equal(keptLabel(files, none), '4 hunks');
  assert.equal(keptLabel(files.slice(1), none), '1 hunk');
  const picked = keptOf(files, [
    { uri, index: 0 },
    { uri, index: 2 },
  ]);
  assert.deepEqual(
    picked.map(({ file, flags }) => [file.uri, flags]),
    [
      [uri, [true, false, true]],
      [newUri, [false]],
    ],
  );
  assert.equal(keptLabel(files, new Map(picked.map(({ file, flags }) => [file.uri, flags]))), '2 of 4 hunks kept');
});

test('Hunks… is offered for several files, or a file of several hunks', () => {
  assert.ok(main && created);
  assert.equal(choosable(files), true);
  assert.equal(choosable([main]), true);
  assert.equal(choosable([created]), false);
  // Edits that do not make the proposed text cannot be kept one by one.
  assert.equal(choosable([{ ...main, after: 'something else' }]), false);
  assert.deepEqual(hunkChoices([{ ...main, after: 'something else' }], new Map(), name), []);
});
