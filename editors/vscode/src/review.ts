// Review mode "diffEditor": a change the server asks the user to confirm
// opens as a diff between the current document and the proposed text, with
// Accept, Reject and (for several hunks) a choice of hunks; the answer goes
// back to the server. In every mode, an applied change is saved when the
// setting saveOnAccept is on.

import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  type ApplyWorkspaceEditParams,
  type ApplyWorkspaceEditRequest,
  type ApplyWorkspaceEditResult,
  CancellationToken,
  ResponseError,
  type WorkspaceEdit,
} from 'vscode-languageclient';
import { choosable, hunkChoices, keptLabel, keptOf } from './hunkchoice';
import { type FileProposal, describe, keptText, needsConfirmation, partialDecision } from './proposal';
import { changedSince, openDocument, readProposal, saveEdited } from './reviewdocs';
import type { Settings } from './settings';

/** The scheme of the read-only documents that hold proposed text. */
export const proposalScheme = 'agentls-proposal';

/** The failure reason the server hears when the user rejects a change. */
export const rejectedByUser = 'rejected by the user';

type Decision = { accept: true } | { accept: false; reason: string };

type Result = ApplyWorkspaceEditResult | ResponseError;

interface Pending {
  id: number;
  files: FileProposal[];
  /** Per file URI, one flag per hunk: kept (the default) or not. */
  kept: Map<string, boolean[]>;
  /** The proposal documents (the right side of each diff), by file URI. */
  right: Map<string, vscode.Uri>;
  /** Every virtual document of the proposal, both sides. */
  docs: string[];
  /** The notification with Accept/Reject is still up. */
  asking: boolean;
  /** How it was decided, once it was: for a late click on its notification. */
  outcome?: string;
  decide(d: Decision): void;
}

const accept = 'Accept';
const reject = 'Reject';
const chooseHunks = 'Hunks…';

export class Review implements vscode.Disposable, vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private readonly pending = new Map<number, Pending>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  private readonly disposables: { dispose(): unknown }[];
  private nextId = 1;

  readonly onDidChange = this.changed.event;

  constructor(
    private readonly settings: () => Pick<Settings, 'reviewMode' | 'saveOnAccept'>,
    private readonly log: (line: string) => void,
  ) {
    this.disposables = [
      this.changed,
      vscode.workspace.registerTextDocumentContentProvider(proposalScheme, this),
      vscode.commands.registerCommand('agentls.acceptProposal', (uri?: vscode.Uri) => {
        this.decideFor(uri, { accept: true });
      }),
      vscode.commands.registerCommand('agentls.rejectProposal', (uri?: vscode.Uri) => {
        this.decideFor(uri, { accept: false, reason: rejectedByUser });
      }),
      vscode.commands.registerCommand('agentls.chooseHunks', async (uri?: vscode.Uri) => {
        const p = this.pendingFor(uri);
        if (p) {
          await this.chooseHunks(p);
        }
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
    const pass = async (p: ApplyWorkspaceEditParams): Promise<Result> => {
      const res = await Promise.resolve(next(p, CancellationToken.None));
      if (!(res instanceof ResponseError) && res.applied) {
        await this.save(p.edit);
      }
      return res;
    };
    if (this.settings().reviewMode !== 'diffEditor' || !needsConfirmation(params.edit)) {
      return pass(params);
    }
    let files: FileProposal[];
    try {
      files = await readProposal(params);
    } catch (err) {
      this.log(`agentls: cannot show the change in a diff editor (${String(err)}); VS Code asks instead`);
      return pass(params);
    }
    const stale = await changedSince(files, 'version');
    if (stale) {
      return { applied: false, failureReason: `${stale} changed since the change was computed` };
    }
    const p = await this.ask(params, files);
    if (p.decision && !p.decision.accept) {
      return { applied: false, failureReason: p.decision.reason };
    }
    const changed = await changedSince(files, 'text');
    if (changed) {
      return { applied: false, failureReason: `${changed} changed while the proposal was open` };
    }
    const versions = new Map<string, number>();
    for (const f of files) {
      const doc = openDocument(f.uri);
      if (doc && typeof f.version === 'number') {
        versions.set(f.uri, doc.version);
      }
    }
    const { apply, result } = partialDecision(params, files, p.kept, versions);
    if (!apply) {
      return { applied: false, failureReason: rejectedByUser }; // every hunk unticked
    }
    const res = await pass(apply);
    if (res instanceof ResponseError) {
      return res;
    }
    if (!res.applied) {
      return { applied: false, failureReason: res.failureReason ?? 'VS Code could not apply the change' };
    }
    return result ?? res;
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

  /** save saves the documents an applied edit changed (setting saveOnAccept). */
  private async save(edit: WorkspaceEdit): Promise<void> {
    if (this.settings().saveOnAccept) {
      await saveEdited(edit, this.log);
    }
  }

  /** ask shows the proposal and waits for the user's decision. */
  private ask(params: ApplyWorkspaceEditParams, files: FileProposal[]): Promise<Pending & { decision?: Decision }> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      const p: Pending & { decision?: Decision } = {
        id,
        files,
        kept: new Map(),
        right: new Map(),
        docs: [],
        asking: true,
        decide: (d) => {
          if (!this.pending.delete(id)) {
            return;
          }
          p.decision = d;
          p.outcome = d.accept ? 'accepted' : d.reason;
          void this.close(p);
          void this.updateContext();
          resolve(p);
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
      p.right.set(f.uri, right);
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
    for (;;) {
      const buttons = choosable(p.files) ? [accept, reject, chooseHunks] : [accept, reject];
      p.asking = true;
      const choice = await vscode.window.showInformationMessage(this.message(p, params), ...buttons);
      p.asking = false;
      if (!this.pending.has(p.id)) {
        if (choice !== undefined) {
          // The notification outlived its proposal: say so, rather than
          // letting the click do nothing.
          void vscode.window.showInformationMessage(
            `agentls: this proposal was already decided (${p.outcome ?? 'closed'}); "${choice}" changed nothing.`,
          );
        }
        return;
      }
      if (choice === accept) {
        p.decide({ accept: true });
      } else if (choice === reject) {
        p.decide({ accept: false, reason: rejectedByUser });
      } else if (choice === chooseHunks) {
        await this.chooseHunks(p);
        if (this.pending.has(p.id)) {
          continue; // ask again, with what is kept now
        }
      } else {
        this.checkAbandoned(p);
      }
      return;
    }
  }

  /** message is the notification's text: the change, and what of it is kept. */
  private message(p: Pending, params: ApplyWorkspaceEditParams): string {
    return `${describe(params.edit, params.label)} (${keptLabel(p.files, p.kept)})`;
  }

  /**
   * chooseHunks lets the user keep or drop each hunk (a quick pick with
   * every hunk, ticked when kept); the diffs then show only what is kept.
   */
  private async chooseHunks(p: Pending): Promise<void> {
    const items = hunkChoices(p.files, p.kept, (uri) => vscode.workspace.asRelativePath(vscode.Uri.parse(uri)));
    const picked = await vscode.window.showQuickPick(items, {
      title: 'agentls: keep which hunks?',
      placeHolder: 'Ticked hunks are applied when you accept; the others are rejected',
      canPickMany: true,
      ignoreFocusOut: true,
    });
    if (!picked || !this.pending.has(p.id)) {
      return;
    }
    for (const { file, flags } of keptOf(p.files, picked)) {
      p.kept.set(file.uri, flags);
      const right = p.right.get(file.uri);
      if (right) {
        this.texts.set(right.toString(), keptText(file, flags));
        this.changed.fire(right);
      }
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
    const shown = new Set([...p.right.values()].map((u) => u.toString()));
    return vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .filter((t) => t.input instanceof vscode.TabInputTextDiff && shown.has(t.input.modified.toString()));
  }

  private async close(p: Pending): Promise<void> {
    const tabs = this.tabsOf(p);
    for (const key of p.docs) {
      this.texts.delete(key);
    }
    p.right.clear();
    if (tabs.length > 0) {
      await vscode.window.tabGroups.close(tabs, true);
    }
  }

  /** pendingFor finds the proposal shown at uri, or else the newest one. */
  private pendingFor(uri: vscode.Uri | undefined): Pending | undefined {
    const target = uri ?? vscode.window.activeTextEditor?.document.uri;
    let p: Pending | undefined;
    if (target?.scheme === proposalScheme) {
      p = this.pending.get(Number.parseInt(target.query, 10));
    }
    p ??= [...this.pending.values()].at(-1);
    if (!p) {
      void vscode.window.showInformationMessage('agentls: no proposal is waiting for review.');
    }
    return p;
  }

  /** decideFor decides the proposal shown at uri, or else the newest one. */
  private decideFor(uri: vscode.Uri | undefined, d: Decision): void {
    this.pendingFor(uri)?.decide(d);
  }

  private updateContext(): Thenable<unknown> {
    return vscode.commands.executeCommand('setContext', 'agentls.proposalPending', this.pending.size > 0);
  }
}
