// Runs in VS Code: Run…, Cancel run, Revert run…, Show runs, the runs'
// status bar entry and the notification at a run's end. The table of runs
// is runs.ts's; what a notification says is notices.ts's.

import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Range } from 'vscode-languageclient/node';
import type { RevertResult, RunResult } from './contract';
import { shorten } from './events';
import { endAction, revertNotice, runEndNotice } from './notices';
import { type RunInfo, type RunsTable, runAction, runActions, runItem, runsStatus } from './runs';
import { type Server, execute, showFailure } from './server';
import type { Sessions } from './sessionsui';
import type { CurrentSession } from './sessions';

/** The arguments of the server's agentls.run command. */
interface RunArgs {
  prompt: string;
  uri?: string;
  range?: Range;
  sessionId?: string;
}

/** What the run commands need of the rest of the extension. */
export interface RunsHooks {
  server: Server;
  runs: RunsTable;
  sessions: Sessions;
  output: vscode.OutputChannel;
  openTranscript(runId: string): Promise<void>;
  openConversation(sessionId: string): Promise<void>;
}

export class Runs implements vscode.Disposable {
  private readonly status = vscode.window.createStatusBarItem('agentls.status', vscode.StatusBarAlignment.Left, 10);

  constructor(private readonly hooks: RunsHooks) {
    this.status.name = 'agentls';
    this.status.command = 'agentls.showRuns';
    this.updateStatus();
    this.status.show();
  }

  /** updateStatus shows the running runs in the status bar. */
  updateStatus(): void {
    const { text, tooltip } = runsStatus(this.hooks.runs.running());
    this.status.text = text;
    this.status.tooltip = tooltip;
  }

  /** runPrompt asks for a task and starts a run on the active file and selection; follow continues that session. */
  async runPrompt(follow?: CurrentSession): Promise<void> {
    const client = this.hooks.server.runningClient();
    if (!client) {
      return;
    }
    const editor = vscode.window.activeTextEditor;
    const doc = editor?.document.uri.scheme === 'file' ? editor.document : undefined;
    const sel = doc && editor && !editor.selection.isEmpty ? editor.selection : undefined;
    let context = 'the workspace';
    if (doc && !vscode.workspace.getWorkspaceFolder(doc.uri)) {
      // The server runs in the workspace (for an answer: on what it answered).
      context = `the workspace (${path.basename(doc.uri.fsPath)} is outside it)`;
    } else if (doc) {
      context = vscode.workspace.asRelativePath(doc.uri);
      if (sel) {
        context += ` lines ${sel.start.line + 1}–${sel.end.line + 1}`;
      }
    }
    const prompt = await vscode.window.showInputBox({
      title: follow ? `agentls: Follow up — ${shorten(follow.title, 60)}` : 'agentls: Run',
      prompt: follow ? `The agent sees the conversation so far. Context: ${context}` : `Context: ${context}`,
      placeHolder: follow ? 'What next?' : 'What should the agent do?',
      ignoreFocusOut: true,
      validateInput: (v) => (v.trim() === '' ? 'Say what the agent should do.' : undefined),
    });
    if (prompt === undefined || prompt.trim() === '') {
      return;
    }
    const args: RunArgs = { prompt };
    if (follow) {
      args.sessionId = follow.id;
    }
    if (doc) {
      args.uri = client.code2ProtocolConverter.asUri(doc.uri);
      if (sel) {
        // VS Code positions are UTF-16, the encoding the server uses with VS Code.
        args.range = client.code2ProtocolConverter.asRange(sel);
      }
    }
    try {
      const res = await execute(client, 'agentls.run', args);
      const run = res as Partial<RunResult> | null;
      if (typeof run?.runId !== 'string') {
        throw new Error(`unexpected answer ${JSON.stringify(res)}`);
      }
      this.hooks.runs.started(run.runId, prompt, run.sessionId);
      if (run.sessionId) {
        this.hooks.sessions.started(follow, run.sessionId, prompt);
      }
      this.updateStatus();
      this.hooks.output.show(true);
    } catch (err) {
      showFailure(err);
    }
  }

  /** revertRun undoes a run's accepted changes: one proposal, reviewed like any other. */
  async revertRun(runId?: string): Promise<void> {
    const client = this.hooks.server.runningClient();
    if (!client) {
      return;
    }
    if (runId === undefined) {
      const ended = this.hooks.runs.all().filter((r) => !r.running);
      if (ended.length === 0) {
        void vscode.window.showInformationMessage('agentls: no finished run to revert.');
        return;
      }
      const pick = await vscode.window.showQuickPick(ended.map(runItem), { title: 'agentls: Revert run', placeHolder: 'Undo the changes of…' });
      runId = pick?.run.id;
    }
    if (runId === undefined) {
      return;
    }
    try {
      const res = (await execute(client, 'agentls.revert', { runId })) as RevertResult;
      const n = revertNotice(res);
      if (n.warn) {
        void vscode.window.showWarningMessage(n.text);
      } else {
        void vscode.window.showInformationMessage(n.text);
      }
      this.hooks.output.appendLine(`agentls: revert of ${runId}: ${res.summary}`);
    } catch (err) {
      showFailure(err);
    }
  }

  async cancelRun(runId?: string): Promise<void> {
    const client = this.hooks.server.runningClient();
    if (!client) {
      return;
    }
    if (runId === undefined) {
      const running = this.hooks.runs.running();
      if (running.length === 0) {
        void vscode.window.showInformationMessage('agentls: no run is running.');
        return;
      }
      const pick = await vscode.window.showQuickPick(running.map(runItem), { title: 'agentls: Cancel run', placeHolder: 'Which run?' });
      runId = pick?.run.id;
    }
    if (runId === undefined) {
      return;
    }
    try {
      await execute(client, 'agentls.cancel', { runId });
    } catch (err) {
      showFailure(err);
    }
  }

  /** showRuns lists the runs and does what the user picks with one. */
  async showRuns(): Promise<void> {
    const all = this.hooks.runs.all();
    if (all.length === 0) {
      void vscode.window.showInformationMessage('agentls: no runs yet (agentls: Run…).');
      return;
    }
    const pick = await vscode.window.showQuickPick(all.map(runItem), { title: 'agentls: Runs', placeHolder: 'Pick a run' });
    if (!pick) {
      return;
    }
    const r = pick.run;
    const action = await vscode.window.showQuickPick(runActions(r), { title: `agentls: ${shorten(r.prompt, 60) || r.id}` });
    switch (action) {
      case runAction.show:
        await this.hooks.openTranscript(r.id);
        break;
      case runAction.conversation:
        if (r.sessionId) {
          await this.hooks.openConversation(r.sessionId);
        }
        break;
      case runAction.followUp:
        await this.hooks.sessions.followUp(r.sessionId);
        break;
      case runAction.revert:
        await this.revertRun(r.id);
        break;
      case runAction.cancel:
        await this.cancelRun(r.id);
        break;
    }
  }

  /** announce tells the user that a run ended, with buttons to read its transcript or follow it up. */
  announce(run: RunInfo): void {
    const n = runEndNotice(run);
    if (!n) {
      return;
    }
    const shown = n.warn ? vscode.window.showWarningMessage(n.text, ...n.actions) : vscode.window.showInformationMessage(n.text, ...n.actions);
    void shown.then((c) => {
      if (c === endAction.show) {
        return this.hooks.openTranscript(run.id);
      }
      if (c === endAction.followUp) {
        return this.hooks.sessions.followUp(run.sessionId);
      }
      return undefined;
    });
  }

  dispose(): void {
    this.status.dispose();
  }
}
