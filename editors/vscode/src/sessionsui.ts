// Conversations in VS Code: the current session (where follow-ups go) and
// its status bar entry, Follow up… and Conversations…. The sessions are the
// server's (agentls.sessions); sessions.ts says how they read.

import * as vscode from 'vscode';
import type { SessionsResult } from './contract';
import { conversation } from './conversation';
import { shorten } from './events';
import type { RunInfo } from './runs';
import { type Server, execute, showFailure } from './server';
import { type CurrentSession, addUsage, currentOf, sessionAfterRun, sessionItem, sessionTooltip, statusText } from './sessions';
import type { Transcript } from './transcript';

/** What the conversations need of the rest of the extension. */
export interface SessionsHooks {
  server: Server;
  output: vscode.OutputChannel;
  transcript: Transcript;
  /** runPrompt asks for a task and runs it in session s. */
  runPrompt(s: CurrentSession): Promise<void>;
  /** openConversation shows a session's conversation document. */
  openConversation(sessionId: string): Promise<void>;
}

export class Sessions implements vscode.Disposable {
  private current: CurrentSession | undefined;
  private readonly status = vscode.window.createStatusBarItem('agentls.session', vscode.StatusBarAlignment.Left, 9);

  constructor(private readonly hooks: SessionsHooks) {
    this.status.name = 'agentls session';
    this.status.command = 'agentls.showSessions';
  }

  /** session is the current session: where follow-ups go. */
  get session(): CurrentSession | undefined {
    return this.current;
  }

  /** started makes a run's session the current one, once the server started the run. */
  started(follow: CurrentSession | undefined, sessionId: string, prompt: string): void {
    this.current = sessionAfterRun(follow, sessionId, prompt);
    this.updateStatus();
  }

  /** ended adds an ended run's cost to the current session, if the run is one of its. */
  ended(run: RunInfo): void {
    if (this.current && run.sessionId === this.current.id) {
      this.current.usage = addUsage(this.current.usage, run.usage);
      this.updateStatus();
    }
  }

  /** followUp continues a session: the given one, else the current one, else one the user picks. */
  async followUp(sessionId?: string): Promise<void> {
    let target = this.current;
    if (sessionId !== undefined && sessionId !== target?.id) {
      const info = (await this.list())?.sessions.find((x) => x.id === sessionId);
      target = info ? currentOf(info) : { id: sessionId, title: sessionId, runs: 0 };
    }
    if (!target) {
      target = await this.pick('agentls: Follow up which conversation?');
    }
    if (target) {
      await this.hooks.runPrompt(target);
    }
  }

  /** showSessions lists the conversations and does what the user picks with one. */
  async showSessions(): Promise<void> {
    const s = await this.pick('agentls: Conversations');
    if (!s) {
      return;
    }
    const follow = 'Follow up…';
    const show = 'Show conversation';
    const del = 'Delete conversation';
    const action = await vscode.window.showQuickPick([follow, show, del], { title: `agentls: ${shorten(s.title, 60)}` });
    if (action === follow) {
      await this.hooks.runPrompt(s);
    } else if (action === show) {
      await this.hooks.openConversation(s.id);
    } else if (action === del) {
      const sure = await vscode.window.showWarningMessage(`agentls: delete the conversation "${shorten(s.title, 60)}"? Its runs' files stay as they are.`, { modal: true }, 'Delete');
      if (sure !== 'Delete') {
        return;
      }
      const client = this.hooks.server.runningClient();
      try {
        if (client) {
          await execute(client, 'agentls.sessions', { action: 'delete', sessionId: s.id });
        }
        if (this.current?.id === s.id) {
          this.current = undefined;
          this.updateStatus();
        }
      } catch (err) {
        showFailure(err);
      }
    }
  }

  /** conversationText is a session's transcript as a conversation. */
  async conversationText(sessionId: string): Promise<string> {
    const info = (await this.list())?.sessions.find((s) => s.id === sessionId);
    if (!info) {
      return `(no conversation ${sessionId} in this workspace)`;
    }
    return conversation(info, (runId) => this.hooks.transcript.body(runId));
  }

  dispose(): void {
    this.status.dispose();
  }

  private async list(): Promise<SessionsResult | undefined> {
    const client = this.hooks.server.runningClient();
    if (!client) {
      return undefined;
    }
    try {
      return (await execute(client, 'agentls.sessions', { action: 'list' })) as SessionsResult;
    } catch (err) {
      showFailure(err);
      return undefined;
    }
  }

  /** pick asks which session, and makes it the current one. */
  private async pick(title: string): Promise<CurrentSession | undefined> {
    const list = await this.list();
    if (!list) {
      return undefined;
    }
    for (const p of list.problems ?? []) {
      this.hooks.output.appendLine(`agentls: ${p}`);
    }
    if (list.sessions.length === 0) {
      void vscode.window.showInformationMessage('agentls: no conversations in this workspace yet (agentls: Run…).');
      return undefined;
    }
    const pick = await vscode.window.showQuickPick(
      list.sessions.map((s) => ({ ...sessionItem(s), session: s })),
      { title, placeHolder: list.persistent ? 'Conversations, the latest first' : 'Conversations (kept until the server stops)' },
    );
    if (!pick) {
      return undefined;
    }
    this.current = currentOf(pick.session);
    this.updateStatus();
    return this.current;
  }

  private updateStatus(): void {
    const s = this.current;
    if (!s) {
      this.status.hide();
      return;
    }
    this.status.text = statusText(s);
    this.status.tooltip = sessionTooltip(s);
    this.status.show();
  }
}
