// Proposals: what a WorkspaceEdit would make of each file. Positions are
// UTF-16 code units, the encoding VS Code and JavaScript strings use (and the
// one the server picks for VS Code). No vscode import (the LSP types are
// type-only): unit-tested with node --test.

import type {
  AnnotatedTextEdit,
  ApplyWorkspaceEditParams,
  Position,
  TextDocumentEdit,
  TextEdit,
  WorkspaceEdit,
} from 'vscode-languageclient';

/** A ProposalError says why an edit cannot be shown as a proposal. */
export class ProposalError extends Error {}

/** One file's proposed change. */
export interface FileProposal {
  /** The document URI, as the server wrote it. */
  uri: string;
  /** The file does not exist yet: a CreateFile makes it. */
  create: boolean;
  /**
   * The document version the edit was computed against (null: the file on
   * disk), or undefined when the edit names none (a new file, or the
   * changes map).
   */
  version?: number | null;
  before: string;
  after: string;
  /** The text edits, as sent, in document order. */
  edits: TextEdit[];
  /** The number of hunks (see groupHunks). */
  hunks: number;
}

/**
 * lineStarts returns the offset of each line's start. Lines end with "\n",
 * "\r\n" or "\r", as in LSP.
 */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 13 /* \r */) {
      if (text.charCodeAt(i + 1) === 10) {
        i++;
      }
      starts.push(i + 1);
    } else if (c === 10 /* \n */) {
      starts.push(i + 1);
    }
  }
  return starts;
}

/**
 * offsetAt maps a position to an offset into text. As LSP says, a character
 * past the end of its line means the line's end (before the line break), and
 * a line past the last line means the end of the text.
 */
export function offsetAt(text: string, starts: readonly number[], pos: Position): number {
  if (pos.line < 0 || pos.character < 0 || !Number.isInteger(pos.line) || !Number.isInteger(pos.character)) {
    throw new ProposalError(`bad position ${pos.line}:${pos.character}`);
  }
  if (pos.line >= starts.length) {
    return text.length;
  }
  const start = starts[pos.line] ?? text.length;
  let end = pos.line + 1 < starts.length ? (starts[pos.line + 1] ?? text.length) : text.length;
  // Exclude the line break.
  if (end > start && text.charCodeAt(end - 1) === 10) {
    end--;
  }
  if (end > start && text.charCodeAt(end - 1) === 13) {
    end--;
  }
  return Math.min(start + pos.character, end);
}

function comparePos(a: Position, b: Position): number {
  return a.line - b.line || a.character - b.character;
}

/**
 * sortEdits orders edits by start position; edits that start at the same
 * position keep their order (LSP: inserts at one position apply in array
 * order).
 */
export function sortEdits<T extends TextEdit>(edits: readonly T[]): T[] {
  return edits
    .map((e, i) => ({ e, i }))
    .sort((a, b) => comparePos(a.e.range.start, b.e.range.start) || a.i - b.i)
    .map(({ e }) => e);
}

/**
 * applyTextEdits applies LSP text edits, all relative to text, and returns
 * the new text. Overlapping edits are an error.
 */
export function applyTextEdits(text: string, edits: readonly TextEdit[]): string {
  const starts = lineStarts(text);
  const spans = sortEdits(edits).map((e) => {
    const start = offsetAt(text, starts, e.range.start);
    const end = offsetAt(text, starts, e.range.end);
    if (end < start) {
      throw new ProposalError(`edit range ends before it starts: ${fmt(e)}`);
    }
    return { start, end, newText: e.newText };
  });
  let out = '';
  let at = 0;
  for (const s of spans) {
    if (s.start < at) {
      throw new ProposalError('overlapping edits');
    }
    out += text.slice(at, s.start) + s.newText;
    at = s.end;
  }
  return out + text.slice(at);
}

function fmt(e: TextEdit): string {
  const { start, end } = e.range;
  return `${start.line}:${start.character}-${end.line}:${end.character}`;
}

/**
 * groupHunks groups edits into hunks: after sorting, consecutive edits whose
 * line ranges touch or overlap (the next edit starts on a line the hunk
 * already reaches, or the line after it) are one hunk. docs/protocol.md
 * defines the rule; the server and the Neovim plugin use it too.
 */
export function groupHunks<T extends TextEdit>(edits: readonly T[]): T[][] {
  const hunks: T[][] = [];
  let end = -1; // the last line the current hunk reaches
  for (const e of sortEdits(edits)) {
    const last = hunks.at(-1);
    if (last && e.range.start.line <= end + 1) {
      last.push(e);
      end = Math.max(end, e.range.end.line);
    } else {
      hunks.push([e]);
      end = e.range.end.line;
    }
  }
  return hunks;
}

/** needsConfirmation tells whether any of edit's changes asks for confirmation. */
export function needsConfirmation(edit: WorkspaceEdit): boolean {
  return Object.values(edit.changeAnnotations ?? {}).some((a) => a.needsConfirmation === true);
}

/** describe is the edit's confirmation label and description, for a message. */
export function describe(edit: WorkspaceEdit, label?: string): string {
  const a = Object.values(edit.changeAnnotations ?? {}).find((x) => x.needsConfirmation === true);
  const head = a?.label ?? label ?? 'agentls: proposed change';
  return a?.description ? `${head} — ${a.description}` : head;
}

type DocumentChange = NonNullable<WorkspaceEdit['documentChanges']>[number];

function isTextDocumentEdit(c: DocumentChange): c is TextDocumentEdit {
  return 'textDocument' in c && 'edits' in c;
}

function plainEdits(tde: TextDocumentEdit): TextEdit[] {
  return tde.edits.map((e) => {
    if (!('newText' in e)) {
      throw new ProposalError('snippet edits are not supported');
    }
    return { range: e.range, newText: e.newText };
  });
}

/**
 * documentsToRead lists the documents whose current text a proposal needs:
 * those edited without being created by the same edit.
 */
export function documentsToRead(edit: WorkspaceEdit): string[] {
  const created = new Set<string>();
  const read = new Set<string>();
  if (edit.documentChanges) {
    for (const c of edit.documentChanges) {
      if ('kind' in c) {
        if (c.kind === 'create') {
          created.add(c.uri);
        }
      } else if (isTextDocumentEdit(c) && !created.has(c.textDocument.uri)) {
        read.add(c.textDocument.uri);
      }
    }
  } else {
    for (const uri of Object.keys(edit.changes ?? {})) {
      read.add(uri);
    }
  }
  return [...read];
}

/**
 * computeProposal works out each file's text before and after edit. read
 * gives the current text of a document documentsToRead listed. Renames and
 * deletes are not proposals this extension shows: they are a ProposalError.
 */
export function computeProposal(edit: WorkspaceEdit, read: (uri: string) => string): FileProposal[] {
  const files = new Map<string, FileProposal>();
  const file = (uri: string, create: boolean): FileProposal => {
    let f = files.get(uri);
    if (!f) {
      const before = create ? '' : read(uri);
      f = { uri, create, before, after: before, edits: [], hunks: 0 };
      files.set(uri, f);
    }
    return f;
  };
  const applyTo = (f: FileProposal, edits: TextEdit[]): void => {
    f.after = applyTextEdits(f.after, edits);
    f.edits.push(...sortEdits(edits));
  };
  if (edit.documentChanges) {
    for (const c of edit.documentChanges) {
      if ('kind' in c) {
        if (c.kind !== 'create') {
          throw new ProposalError(`${c.kind} operations are not shown as proposals`);
        }
        if (files.has(c.uri)) {
          throw new ProposalError(`${c.uri} is created after it was edited`);
        }
        file(c.uri, true);
      } else if (isTextDocumentEdit(c)) {
        const f = file(c.textDocument.uri, false);
        if (f.version === undefined && !f.create) {
          f.version = c.textDocument.version;
        }
        applyTo(f, plainEdits(c));
      }
    }
  } else {
    for (const [uri, edits] of Object.entries(edit.changes ?? {})) {
      applyTo(file(uri, false), edits.map((e) => ({ range: e.range, newText: e.newText })));
    }
  }
  const out = [...files.values()];
  for (const f of out) {
    f.hunks = groupHunks(f.edits).length;
  }
  return out;
}

/**
 * withoutConfirmation is params with the edit's change annotations removed,
 * so that the editor applies it without asking again. versions replaces the
 * version of the documents it names: the user accepted a proposal against a
 * document whose text is unchanged but whose version moved (an edit and its
 * undo).
 */
export function withoutConfirmation(
  params: ApplyWorkspaceEditParams,
  versions: ReadonlyMap<string, number> = new Map(),
): ApplyWorkspaceEditParams {
  const strip = (e: TextEdit | AnnotatedTextEdit): TextEdit => ({ range: e.range, newText: e.newText });
  const edit: WorkspaceEdit = {};
  if (params.edit.changes) {
    edit.changes = Object.fromEntries(Object.entries(params.edit.changes).map(([uri, es]) => [uri, es.map(strip)]));
  }
  if (params.edit.documentChanges) {
    edit.documentChanges = params.edit.documentChanges.map((c): DocumentChange => {
      if ('kind' in c) {
        const op = { ...c };
        delete op.annotationId;
        return op;
      }
      const uri = c.textDocument.uri;
      const v = versions.get(uri);
      return {
        textDocument: { uri, version: v !== undefined && c.textDocument.version !== null ? v : c.textDocument.version },
        edits: plainEdits(c),
      };
    });
  }
  return { ...params, edit };
}

/** A Hunk is one group of a file's edits (groupHunks), as the user sees it. */
export interface Hunk {
  /** 0-based, in the order of the file's edits: the protocol's hunk number. */
  index: number;
  /** The 1-based line of the file where the hunk starts. */
  line: number;
  edits: TextEdit[];
}

/** hunksOf lists a file's hunks. */
export function hunksOf(f: FileProposal): Hunk[] {
  return groupHunks(f.edits).map((edits, index) => ({ index, line: (edits[0]?.range.start.line ?? 0) + 1, edits }));
}

/**
 * canChooseHunks tells whether a file's hunks can be kept one by one: its
 * edits, taken as one list against the text before, make the proposed text
 * (true of what the server sends: one TextDocumentEdit per file).
 */
export function canChooseHunks(f: FileProposal): boolean {
  try {
    return applyTextEdits(f.before, f.edits) === f.after;
  } catch {
    return false;
  }
}

/** keptText is a file's text with only the kept hunks applied. */
export function keptText(f: FileProposal, kept: readonly boolean[]): string {
  return applyTextEdits(
    f.before,
    hunksOf(f).flatMap((h) => (kept[h.index] === false ? [] : h.edits)),
  );
}

/** The agentls extension of the applyEdit result (docs/protocol.md). */
export interface PartialResult {
  applied: true;
  agentls: { files: { uri: string; text: string; rejectedHunks: number[] }[] };
}

/**
 * partialDecision is what the user kept of a proposal, hunk by hunk:
 * kept maps a file's URI to one flag per hunk (missing: all kept). It gives
 * the edit to apply (only the kept hunks, without annotations; a file with
 * no hunk kept is left out, its CreateFile too) and the answer for the
 * server, or undefined for either when nothing or everything was kept.
 */
export function partialDecision(
  params: ApplyWorkspaceEditParams,
  files: readonly FileProposal[],
  kept: ReadonlyMap<string, readonly boolean[]>,
  versions: ReadonlyMap<string, number> = new Map(),
): { apply?: ApplyWorkspaceEditParams; result?: PartialResult } {
  const documentChanges: DocumentChange[] = [];
  const result: PartialResult = { applied: true, agentls: { files: [] } };
  let any = false;
  for (const f of files) {
    const flags = kept.get(f.uri) ?? [];
    const hunks = hunksOf(f);
    const keep = hunks.filter((h) => flags[h.index] !== false);
    const rejected = hunks.filter((h) => flags[h.index] === false).map((h) => h.index);
    if (rejected.length > 0) {
      result.agentls.files.push({ uri: f.uri, text: keptText(f, flags), rejectedHunks: rejected });
    }
    if (keep.length === 0 && hunks.length > 0) {
      continue;
    }
    any = true;
    if (f.create) {
      const op = params.edit.documentChanges?.find((c) => 'kind' in c && c.kind === 'create' && c.uri === f.uri);
      documentChanges.push(op ? withoutAnnotation(op) : { kind: 'create', uri: f.uri, options: { overwrite: false, ignoreIfExists: false } });
    }
    const edits = keep.flatMap((h) => h.edits);
    if (edits.length > 0) {
      const v = versions.get(f.uri);
      const version = f.create || f.version === undefined || f.version === null ? null : (v ?? f.version);
      documentChanges.push({ textDocument: { uri: f.uri, version }, edits });
    }
  }
  if (result.agentls.files.length === 0) {
    return { apply: { ...params, edit: withoutConfirmation(params, versions).edit } };
  }
  return any ? { apply: { ...params, edit: { documentChanges } }, result } : {};
}

function withoutAnnotation(op: DocumentChange): DocumentChange {
  const out = { ...op };
  if ('annotationId' in out) {
    delete out.annotationId;
  }
  return out;
}
