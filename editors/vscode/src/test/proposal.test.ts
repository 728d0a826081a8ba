import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe as suite, test } from 'node:test';
import type { ApplyWorkspaceEditParams, Range, TextEdit, WorkspaceEdit } from 'vscode-languageclient';
import {
  ProposalError,
  applyTextEdits,
  computeProposal,
  describe,
  documentsToRead,
  groupHunks,
  lineStarts,
  needsConfirmation,
  offsetAt,
  withoutConfirmation,
} from '../proposal';

function range(sl: number, sc: number, el: number, ec: number): Range {
  return { start: { line: sl, character: sc }, end: { line: el, character: ec } };
}

function edit(sl: number, sc: number, el: number, ec: number, newText: string): TextEdit {
  return { range: range(sl, sc, el, ec), newText };
}

suite('positions', () => {
  test('line starts with \\n, \\r\\n and \\r', () => {
    assert.deepEqual(lineStarts('a\nb\r\nc\rd'), [0, 2, 5, 7]);
    assert.deepEqual(lineStarts(''), [0]);
    assert.deepEqual(lineStarts('x\n'), [0, 2]);
  });

  test('characters are UTF-16 code units', () => {
    const text = 'a😀b\nz'; // the emoji is two code units
    const starts = lineStarts(text);
    assert.equal(offsetAt(text, starts, { line: 0, character: 3 }), 3);
    assert.equal(text.slice(0, offsetAt(text, starts, { line: 0, character: 3 })), 'a😀');
  });

  test('past the end of a line or the text clamps', () => {
    const text = 'ab\r\ncd';
    const starts = lineStarts(text);
    assert.equal(offsetAt(text, starts, { line: 0, character: 99 }), 2); // before \r\n
    assert.equal(offsetAt(text, starts, { line: 5, character: 0 }), text.length);
    assert.throws(() => offsetAt(text, starts, { line: -1, character: 0 }), ProposalError);
  });
});

suite('applyTextEdits', () => {
  test('applies edits given in any order', () => {
    const text = 'one\ntwo\nthree\n';
    const out = applyTextEdits(text, [edit(2, 0, 2, 5, 'THREE'), edit(0, 0, 1, 0, '')]);
    assert.equal(out, 'two\nTHREE\n');
  });

  test('inserts at one position keep their order', () => {
    assert.equal(applyTextEdits('x', [edit(0, 0, 0, 0, 'a'), edit(0, 0, 0, 0, 'b')]), 'abx');
  });

  test('replaces text after a surrogate pair', () => {
    assert.equal(applyTextEdits('😀é\n', [edit(0, 2, 0, 3, 'e')]), '😀e\n');
  });

  test('rejects overlapping edits', () => {
    assert.throws(() => applyTextEdits('abcdef', [edit(0, 0, 0, 3, 'x'), edit(0, 2, 0, 4, 'y')]), /overlapping/);
  });

  test('rejects a range that ends before it starts', () => {
    assert.throws(() => applyTextEdits('abcdef', [edit(0, 3, 0, 1, 'x')]), ProposalError);
  });
});

suite('groupHunks', () => {
  test('edits on touching or overlapping lines are one hunk', () => {
    const a = edit(3, 0, 4, 0, ''); // delete line 3
    const b = edit(4, 0, 4, 0, 'new\n'); // insert where line 4 starts
    const c = edit(6, 0, 7, 0, 'x\n'); // line 5 unchanged in between
    const d = edit(6, 2, 6, 2, 'y'); // would overlap c; grouping does not care
    assert.deepEqual(groupHunks([c, a, d, b]), [[a, b], [c, d]]);
  });

  test('adjacent lines join, a line between separates (docs/protocol.md)', () => {
    const a = edit(0, 0, 0, 1, 'a');
    const b = edit(2, 0, 2, 1, 'b'); // line 1 unchanged in between
    const c = edit(3, 0, 3, 1, 'c'); // on the line after b's
    assert.deepEqual(groupHunks([a, b, c]), [[a], [b, c]]);
  });

  test('no edits, no hunks', () => {
    assert.deepEqual(groupHunks([]), []);
  });

  test('the contract\'s vectors (docs/schema/hunk-vectors.json)', () => {
    interface Span {
      start: number;
      end: number;
    }
    interface Vector {
      name: string;
      spans: Span[];
      hunks: { first: number; last: number; start: number; end: number }[];
    }
    const file = join(__dirname, '..', '..', '..', '..', 'docs', 'schema', 'hunk-vectors.json');
    const { vectors } = JSON.parse(readFileSync(file, 'utf8')) as { vectors: Vector[] };
    assert.ok(vectors.length >= 5);
    for (const v of vectors) {
      const edits = v.spans.map((s, i) => edit(s.start, 0, s.end, 0, String(i)));
      const got = groupHunks(edits).map((h) => ({
        first: Number(h[0]?.newText),
        last: Number(h.at(-1)?.newText),
        start: Math.min(...h.map((e) => e.range.start.line)),
        end: Math.max(...h.map((e) => e.range.end.line)),
      }));
      assert.deepEqual(got, v.hunks, v.name);
    }
  });
});

// The shape lsp's proposer sends (edits.WorkspaceEdit with NeedsConfirmation).
function serverEdit(): WorkspaceEdit {
  return {
    documentChanges: [
      {
        textDocument: { uri: 'file:///w/main.go', version: 3 },
        edits: [
          { range: range(1, 0, 2, 0), newText: 'b2\n', annotationId: 'agentls-1' },
          { range: range(4, 0, 4, 0), newText: 'e\n', annotationId: 'agentls-1' },
        ],
      },
      {
        kind: 'create',
        uri: 'file:///w/new.go',
        options: { overwrite: false, ignoreIfExists: false },
        annotationId: 'agentls-1',
      },
      {
        textDocument: { uri: 'file:///w/new.go', version: null },
        edits: [{ range: range(0, 0, 0, 0), newText: 'package main\n', annotationId: 'agentls-1' }],
      },
    ],
    changeAnnotations: {
      'agentls-1': { label: 'agentls: main.go', needsConfirmation: true, description: 'Fix it — 2 files, +3 −1' },
    },
  };
}

suite('computeProposal', () => {
  test('documentsToRead skips files the edit creates', () => {
    assert.deepEqual(documentsToRead(serverEdit()), ['file:///w/main.go']);
  });

  test('before and after per file, with CreateFile + insert', () => {
    const files = computeProposal(serverEdit(), (uri) => {
      assert.equal(uri, 'file:///w/main.go');
      return 'a\nb\nc\nd\n';
    });
    assert.equal(files.length, 2);
    const [main, created] = files;
    assert.ok(main && created);
    assert.deepEqual(
      { create: main.create, version: main.version, before: main.before, after: main.after, hunks: main.hunks },
      { create: false, version: 3, before: 'a\nb\nc\nd\n', after: 'a\nb2\nc\nd\ne\n', hunks: 2 },
    );
    assert.deepEqual(
      { create: created.create, before: created.before, after: created.after, hunks: created.hunks },
      { create: true, before: '', after: 'package main\n', hunks: 1 },
    );
  });

  test('the changes map', () => {
    const files = computeProposal({ changes: { 'file:///w/a.txt': [edit(0, 0, 0, 1, 'X')] } }, () => 'abc');
    assert.deepEqual(
      files.map((f) => [f.after, f.version]),
      [['Xbc', undefined]],
    );
  });

  test('renames and deletes are not proposals', () => {
    assert.throws(
      () => computeProposal({ documentChanges: [{ kind: 'delete', uri: 'file:///w/a' }] }, () => ''),
      ProposalError,
    );
  });

  test('needsConfirmation and describe read the annotations', () => {
    assert.equal(needsConfirmation(serverEdit()), true);
    assert.equal(needsConfirmation({ changes: {} }), false);
    assert.equal(describe(serverEdit()), 'agentls: main.go — Fix it — 2 files, +3 −1');
    assert.equal(describe({}, 'label'), 'label');
  });
});

suite('withoutConfirmation', () => {
  test('drops annotations and updates open documents versions', () => {
    const params: ApplyWorkspaceEditParams = { label: 'agentls: main.go', edit: serverEdit() };
    const out = withoutConfirmation(params, new Map([['file:///w/main.go', 5], ['file:///w/new.go', 9]]));
    assert.equal(out.label, 'agentls: main.go');
    assert.equal(out.edit.changeAnnotations, undefined);
    assert.equal(needsConfirmation(out.edit), false);
    const json = JSON.stringify(out.edit);
    assert.doesNotMatch(json, /annotationId/);
    const [main, create, created] = out.edit.documentChanges ?? [];
    assert.deepEqual(main, {
      textDocument: { uri: 'file:///w/main.go', version: 5 },
      edits: [
        { range: range(1, 0, 2, 0), newText: 'b2\n' },
        { range: range(4, 0, 4, 0), newText: 'e\n' },
      ],
    });
    assert.deepEqual(create, { kind: 'create', uri: 'file:///w/new.go', options: { overwrite: false, ignoreIfExists: false } });
    // A null version (the file on disk) stays null.
    assert.deepEqual(created, {
      textDocument: { uri: 'file:///w/new.go', version: null },
      edits: [{ range: range(0, 0, 0, 0), newText: 'package main\n' }],
    });
    // The input is left alone.
    assert.match(JSON.stringify(params.edit), /annotationId/);
  });
});
