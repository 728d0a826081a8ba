// The documents of a review: the text a proposal is computed from, whether
// a document moved since, and saving what was applied (saveOnAccept).

import * as vscode from 'vscode';
import type { ApplyWorkspaceEditParams, WorkspaceEdit } from 'vscode-languageclient';
import { type FileProposal, computeProposal, documentsToRead } from './proposal';

/** readProposal computes a proposal from the documents' current text. */
export async function readProposal(params: ApplyWorkspaceEditParams): Promise<FileProposal[]> {
  const texts = new Map<string, string>();
  for (const uri of documentsToRead(params.edit)) {
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(uri));
    texts.set(uri, doc.getText());
  }
  return computeProposal(params.edit, (uri) => {
    const t = texts.get(uri);
    if (t === undefined) {
      throw new Error(`${uri} was not read`);
    }
    return t;
  });
}

/**
 * changedSince returns the name of the first file whose document moved
 * from the proposal: its version differs from the one the edit names, or
 * its text from the text the proposal was computed from.
 */
export async function changedSince(files: FileProposal[], what: 'version' | 'text'): Promise<string | undefined> {
  for (const f of files) {
    if (f.create) {
      continue; // the CreateFile fails by itself if the file appeared
    }
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(f.uri));
    const moved = what === 'version' ? typeof f.version === 'number' && doc.version !== f.version : doc.getText() !== f.before;
    if (moved) {
      return vscode.workspace.asRelativePath(doc.uri);
    }
  }
  return undefined;
}

/** openDocument is the open document uri, if it is open. */
export function openDocument(uri: string): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((d) => d.uri.toString() === vscode.Uri.parse(uri).toString());
}

/** saveEdited saves the documents an applied edit changed; log hears of those it could not save. */
export async function saveEdited(edit: WorkspaceEdit, log: (line: string) => void): Promise<void> {
  const uris = new Set<string>(Object.keys(edit.changes ?? {}));
  for (const c of edit.documentChanges ?? []) {
    if ('textDocument' in c) {
      uris.add(c.textDocument.uri);
    }
  }
  for (const uri of uris) {
    const doc = openDocument(uri);
    if (doc?.isDirty && !(await doc.save())) {
      log(`agentls: could not save ${vscode.workspace.asRelativePath(doc.uri)}`);
    }
  }
}
