// Review mode "diffEditor": a change the server asks the user to confirm
// opens as a diff between the current document and the proposed text, with
// Accept and Reject buttons; the answer goes back to the server.

import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  type ApplyWorkspaceEditParams,
  type ApplyWorkspaceEditRequest,
  type ApplyWorkspaceEditResult,
  CancellationToken,
  ResponseError,
} from 'vscode-languageclient';
import {
  type FileProposal,
  computeProposal,
  describe,
  documentsToRead,
  needsConfirmation,
  withoutConfirmation,
} from './proposal';
import type { ReviewMode } from './settings';

/** The scheme of the read-only documents that hold proposed text. */
export const proposalScheme = 'agentls-proposal';

/** The failure reason the server hears when the user rejects a change. */
export const rejectedByUser = 'rejected by the user';

type Decision = { accept: true } | { accept: false; reason: string };

type Result = ApplyWorkspaceEditResult | ResponseError;

interface Pending {
  id: number;
  files: FileProposal[];
  /** The proposal documents (the right side of each diff) as strings. */
  shown: Set<string>;
  /** Every virtual document of the proposal, both sides. */
  docs: string[];
  /** The notification with Accept/Reject is still up. */
  asking: boolean;
  decide(d: Decision): void;
}

export class Review implements vscode.Disposable, vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private readonly pending = new Map<number, Pending>();
  private readonly disposables: vscode.Disposable[];
  private nextId = 1;

  constructor(
    private readonly mode: () => ReviewMode,
    private readonly log: (line: string) => void,
  ) {
    this.disposables = [
      vscode.workspace.registerTextDocumentContentProvider(proposalScheme, this),
      vscode.commands.registerCommand('agentls.acceptProposal', (uri?: vscode.Uri) => {
        this.decideFor(uri, { accept: true });
      }),
      vscode.commands.registerCommand('agentls.rejectProposal', (uri?: vscode.Uri) => {
        this.decideFor(uri, { accept: false, reason: rejectedByUser });
      }),
      vscode.window.tabGroups.onDidChangeTabs(() => {
        for (const p of this.pending.values()) {
          this.checkAbandoned(p);
        }
      }),
    ];
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }

  /**
   * handleApplyEdit is the language client's workspace/applyEdit middleware.
   * Edits that need no confirmation, and every edit in refactorPreview mode,
   * go to the client's own handler (VS Code shows its refactor preview for
   * needsConfirmation edits).
   */
  readonly handleApplyEdit = async (
    params: ApplyWorkspaceEditParams,
    next: ApplyWorkspaceEditRequest.HandlerSignature,
  ): Promise<Result> => {
    const pass = (p: ApplyWorkspaceEditParams): Promise<Result> => Promise.resolve(next(p, CancellationToken.None));
    if (this.mode() !== 'diffEditor' || !needsConfirmation(params.edit)) {
      return pass(params);
    }
    let files: FileProposal[];
    try {
      files = await this.proposalFor(params);
    } catch (err) {
      this.log(`agentls: cannot show the change in a diff editor (${String(err)}); VS Code asks instead`);
      return pass(params);
    }
    const stale = await this.changedSince(files, 'version');
    if (stale) {
      return { applied: false, failureReason: `${stale} changed since the change was computed` };
    }
    const d = await this.ask(params, files);
    if (!d.accept) {
      return { applied: false, failureReason: d.reason };
    }
    const changed = await this.changedSince(files, 'text');
    if (changed) {
      return { applied: false, failureReason: `${changed} changed while the proposal was open` };
    }
    const versions = new Map<string, number>();
    for (const f of files) {
      const doc = this.openDocument(f.uri);
      if (doc && typeof f.version === 'number') {
        versions.set(f.uri, doc.version);
      }
    }
    const res = await pass(withoutConfirmation(params, versions));
    if (!(res instanceof ResponseError) && !res.applied && !res.failureReason) {
      return { applied: false, failureReason: 'VS Code could not apply the change' };
    }
    return res;
  };

  /**
   * withdraw drops the proposals for a file the server no longer waits for
   * (its run was cancelled); path is the server's absolute path.
   */
  withdraw(filePath: string): void {
    for (const p of [...this.pending.values()]) {
      if (p.files.some((f) => vscode.Uri.parse(f.uri).fsPath === path.normalize(filePath))) {
        p.decide({ accept: false, reason: 'withdrawn by the server' });
      }
    }
  }

  /** rejectAll answers every open proposal with reason. */
  rejectAll(reason: string): void {
    for (const p of [...this.pending.values()]) {
      p.decide({ accept: false, reason });
    }
  }

  dispose(): void {
    this.rejectAll('the editor closed the proposal');
    for (const d of this.disposables) {
      d.dispose();
    }
  }

  private async proposalFor(params: ApplyWorkspaceEditParams): Promise<FileProposal[]> {
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
  private async changedSince(files: FileProposal[], what: 'version' | 'text'): Promise<string | undefined> {
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

  private openDocument(uri: string): vscode.TextDocument | undefined {
    return vscode.workspace.textDocuments.find((d) => d.uri.toString() === vscode.Uri.parse(uri).toString());
  }

  /** ask shows the proposal and waits for the user's decision. */
  private ask(params: ApplyWorkspaceEditParams, files: FileProposal[]): Promise<Decision> {
    const id = this.nextId++;
    return new Promise<Decision>((resolve) => {
      const p: Pending = {
        id,
        files,
        shown: new Set(),
        docs: [],
        asking: true,
        decide: (d) => {
          if (!this.pending.delete(id)) {
            return;
          }
          void this.close(p);
          void this.updateContext();
          resolve(d);
        },
      };
      this.pending.set(id, p);
      void this.updateContext();
      this.show(p, params).catch((err: unknown) => {
        this.log(`agentls: cannot show the proposal: ${String(err)}`);
        p.decide({ accept: false, reason: `the editor could not show the proposal: ${String(err)}` });
      });
    });
  }

  private async show(p: Pending, params: ApplyWorkspaceEditParams): Promise<void> {
    for (const f of p.files) {
      if (!this.pending.has(p.id)) {
        return; // decided meanwhile (withdrawn)
      }
      const fileUri = vscode.Uri.parse(f.uri);
      const name = path.basename(fileUri.path);
      const right = this.proposalUri(fileUri, p.id, 'proposed');
      this.texts.set(right.toString(), f.after);
      p.shown.add(right.toString());
      p.docs.push(right.toString());
      let left = fileUri;
      if (f.create) {
        left = this.proposalUri(fileUri, p.id, 'empty');
        this.texts.set(left.toString(), '');
        p.docs.push(left.toString());
      }
      const title = `${name} (agentls proposal${f.create ? ', new file' : ''})`;
      await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: false });
    }
    if (!this.pending.has(p.id)) {
      await this.close(p);
      return;
    }
    const hunks = p.files.reduce((n, f) => n + f.hunks, 0);
    const msg = `${describe(params.edit, params.label)} (${hunks} hunk${hunks === 1 ? '' : 's'})`;
    const choice = await vscode.window.showInformationMessage(msg, 'Accept', 'Reject');
    p.asking = false;
    if (choice === 'Accept') {
      p.decide({ accept: true });
    } else if (choice === 'Reject') {
      p.decide({ accept: false, reason: rejectedByUser });
    } else {
      this.checkAbandoned(p);
    }
  }

  private proposalUri(file: vscode.Uri, id: number, side: 'proposed' | 'empty'): vscode.Uri {
    return vscode.Uri.from({ scheme: proposalScheme, path: file.path, query: `${id}-${side}` });
  }

  /**
   * checkAbandoned rejects a proposal once the user closed both its
   * notification and its diff editors.
   */
  private checkAbandoned(p: Pending): void {
    if (!p.asking && this.tabsOf(p).length === 0) {
      p.decide({ accept: false, reason: 'the user closed the proposal without accepting it' });
    }
  }

  private tabsOf(p: Pending): vscode.Tab[] {
    return vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .filter((t) => t.input instanceof vscode.TabInputTextDiff && p.shown.has(t.input.modified.toString()));
  }

  private async close(p: Pending): Promise<void> {
    const tabs = this.tabsOf(p);
    for (const key of p.docs) {
      this.texts.delete(key);
    }
    p.shown.clear();
    if (tabs.length > 0) {
      await vscode.window.tabGroups.close(tabs, true);
    }
  }

  /** decideFor decides the proposal shown at uri, or else the newest one. */
  private decideFor(uri: vscode.Uri | undefined, d: Decision): void {
    const target = uri ?? vscode.window.activeTextEditor?.document.uri;
    let p: Pending | undefined;
    if (target?.scheme === proposalScheme) {
      p = this.pending.get(Number.parseInt(target.query, 10));
    }
    p ??= [...this.pending.values()].at(-1);
    if (!p) {
      void vscode.window.showInformationMessage('agentls: no proposal is waiting for review.');
      return;
    }
    p.decide(d);
  }

  private updateContext(): Thenable<unknown> {
    return vscode.commands.executeCommand('setContext', 'agentls.proposalPending', this.pending.size > 0);
  }
}
