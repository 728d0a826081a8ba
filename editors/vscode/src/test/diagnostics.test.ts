import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DiagnosticsParams } from '../contract';
import { DiagnosticsForwarder, type DiagnosticsHost, type EditorDiagnostic } from '../diagnostics';
import { FakeTimers } from './faketimers';

const inside = 'file:///w/main.go';
const other = 'file:///w/util.go';
const outside = 'file:///elsewhere/x.go';

function diag(line: number, severity: number, message: string, source?: string): EditorDiagnostic {
  return { range: { start: { line, character: 1 }, end: { line, character: 4 } }, severity, message, source };
}

/** A fake editor: its diagnostics and versions are the test's to change; sent lists are recorded. */
class FakeEditor implements DiagnosticsHost {
  lists = new Map<string, EditorDiagnostic[]>();
  owned = new Map<string, EditorDiagnostic[]>();
  versions = new Map<string, number>();
  sent: DiagnosticsParams[] = [];
  diagnostics(uri: string): readonly EditorDiagnostic[] {
    return this.lists.get(uri) ?? [];
  }
  own(uri: string): readonly EditorDiagnostic[] {
    return this.owned.get(uri) ?? [];
  }
  inWorkspace(uri: string): boolean {
    return uri.startsWith('file:///w/');
  }
  version(uri: string): number | undefined {
    return this.versions.get(uri);
  }
  send(params: DiagnosticsParams): void {
    this.sent.push(params);
  }
}

test('a burst of changes is one list per document, after the debounce, with the version when it changed', () => {
  const ed = new FakeEditor();
  const timers = new FakeTimers();
  const f = new DiagnosticsForwarder(ed, 200, timers);
  ed.versions.set(inside, 3);
  ed.lists.set(inside, [diag(2, 0, 'undefined: y', 'compiler')]);
  f.changed([inside]);
  ed.lists.set(inside, [diag(2, 0, 'undefined: y', 'compiler'), diag(4, 1, 'x is unused', 'vet')]);
  f.changed([inside, other]);
  assert.deepEqual(ed.sent, [], 'sent before the debounce');
  assert.equal(timers.pending.size, 1, 'one timer for the burst');
  assert.equal([...timers.pending.values()][0]?.ms, 200);
  // The user types before the debounce ends: the list is about version 3.
  ed.versions.set(inside, 4);
  timers.fire();
  assert.deepEqual(ed.sent, [
    {
      uri: inside,
      version: 3,
      diagnostics: [
        { range: { start: { line: 2, character: 1 }, end: { line: 2, character: 4 } }, severity: 1, message: 'undefined: y', source: 'compiler' },
        { range: { start: { line: 4, character: 1 }, end: { line: 4, character: 4 } }, severity: 2, message: 'x is unused', source: 'vet' },
      ],
    },
    { uri: other, diagnostics: [] }, // not open: no version; cleared
  ]);
});

test('files outside the workspace folders are never sent', () => {
  const ed = new FakeEditor();
  const timers = new FakeTimers();
  const f = new DiagnosticsForwarder(ed, 200, timers);
  ed.lists.set(outside, [diag(0, 0, 'outside')]);
  f.changed([outside]);
  assert.equal(timers.pending.size, 0);
  f.all([outside]);
  f.flush();
  assert.deepEqual(ed.sent, []);
});

test("agentls's own diagnostics are never sent back", () => {
  const ed = new FakeEditor();
  const f = new DiagnosticsForwarder(ed, 200, new FakeTimers());
  const mine = diag(1, 2, 'from agentls');
  ed.owned.set(inside, [{ ...mine, range: { start: { ...mine.range.start }, end: { ...mine.range.end } } }]);
  ed.lists.set(inside, [mine, diag(1, 2, 'tagged', 'agentls'), diag(1, 0, 'real', 'tsserver')]);
  f.all([inside]);
  assert.equal(ed.sent.length, 1);
  assert.deepEqual(
    ed.sent[0]?.diagnostics?.map((d) => d.message),
    ['real'],
  );
});

test('every severity and a code object convert to the protocol', () => {
  const ed = new FakeEditor();
  const f = new DiagnosticsForwarder(ed, 200, new FakeTimers());
  ed.lists.set(inside, [
    { ...diag(0, 3, 'hint'), code: { value: 'E1' } },
    { ...diag(0, 2, 'info'), code: 7 },
  ]);
  f.all([inside]);
  assert.deepEqual(
    ed.sent[0]?.diagnostics?.map((d) => [d.severity, d.code]),
    [
      [4, 'E1'],
      [3, 7],
    ],
  );
});

/** A position as VS Code's extension host has it: line and character are getters over private fields. */
class GetterPosition {
  constructor(
    private readonly _line: number,
    private readonly _character: number,
  ) {}
  get line(): number {
    return this._line;
  }
  get character(): number {
    return this._character;
  }
}

test("positions are read through VS Code's getters, as the JSON it sends", () => {
  const ed = new FakeEditor();
  const f = new DiagnosticsForwarder(ed, 200, new FakeTimers());
  const range = { start: new GetterPosition(3, 2), end: new GetterPosition(3, 9) };
  ed.lists.set(inside, [{ range, severity: 0, message: 'Expected comma', source: 'json' }]);
  f.all([inside]);
  assert.deepEqual(JSON.parse(JSON.stringify(ed.sent[0]?.diagnostics)), [
    { range: { start: { line: 3, character: 2 }, end: { line: 3, character: 9 } }, severity: 1, message: 'Expected comma', source: 'json' },
  ]);
});

test('dispose drops what waits', () => {
  const ed = new FakeEditor();
  const timers = new FakeTimers();
  const f = new DiagnosticsForwarder(ed, 200, timers);
  f.changed([inside]);
  f.dispose();
  assert.equal(timers.pending.size, 0);
  f.flush();
  assert.deepEqual(ed.sent, []);
});
