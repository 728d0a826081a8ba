// The agentls VS Code extension: starts `agentls serve`, sends prompts to it,
// shows its runs (status bar, transcript) and reviews its proposed changes.

import * as vscode from 'vscode';
import {
  type ConfigurationParams,
  type ConfigurationRequest,
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  type LanguageClientOptions,
  type Range,
  ResponseError,
  type ServerOptions,
  State,
  TransportKind,
} from 'vscode-languageclient/node';
import type { RevertResult, RunResult, SessionsResult } from './contract';
import { conversation } from './conversation';
import { DiagnosticsForwarder, diagnosticsMethod } from './diagnostics';
import { type EventNotification, eventMethod, isEventNotification, shorten } from './events';
import { Review } from './review';
import { type RunInfo, RunsTable, endMessage } from './runs';
import { type CurrentSession, type SessionInfo, addUsage, costLabel, sessionItem, statusText } from './sessions';
import { type InitializationOptions, type Settings, initializationOptions, readSettings, userScopeOnly } from './settings';
import { Transcript } from './transcript';

const transcriptScheme = 'agentls-transcript';
const keepEndedRuns = 50;

/** The arguments of the server's agentls.run command. */
interface RunArgs {
  prompt: string;
  uri?: string;
  range?: Range;
  sessionId?: string;
}

let extension: Extension | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  extension = new Extension();
  context.subscriptions.push(extension);
  await extension.start();
}

export async function deactivate(): Promise<void> {
  await extension?.stop();
}

/** The section "agentls" as VS Code has it (defaults included). */
function rawSettings(scope?: vscode.ConfigurationScope): unknown {
  return userScopeOnly(vscode.workspace.getConfiguration(undefined, scope).get<unknown>('agentls'), userServers());
}

/** The user-scope value of agentls.mcpServers: only the user's own settings start servers. */
function userServers(): unknown {
  return vscode.workspace.getConfiguration('agentls').inspect<unknown>('mcpServers')?.globalValue;
}

class Extension implements vscode.Disposable {
  private readonly output = vscode.window.createOutputChannel('agentls');
  /** The server's log (its stderr, window/logMessage), shared by every client we start. */
  private readonly serverLog = vscode.window.createOutputChannel('agentls server', { log: true });
  private readonly status = vscode.window.createStatusBarItem('agentls.status', vscode.StatusBarAlignment.Left, 10);
  /** The current session: where follow-ups go. */
  private readonly sessionStatus = vscode.window.createStatusBarItem('agentls.session', vscode.StatusBarAlignment.Left, 9);
  private session: CurrentSession | undefined;
  private readonly runs = new RunsTable();
  private readonly transcript = new Transcript();
  private readonly transcriptChanged = new vscode.EventEmitter<vscode.Uri>();
  private readonly review: Review;
  private readonly diagnostics: DiagnosticsForwarder;
  private readonly disposables: { dispose(): unknown }[] = [];
  private readonly refresh = new Map<string, ReturnType<typeof setTimeout>>();
  private settings: Settings;
  private lastProblems = '';
  private client: LanguageClient | undefined;

  constructor() {
    this.settings = this.loadSettings();
    this.review = new Review(
      () => this.settings.reviewMode,
      (line) => {
        this.output.appendLine(line);
      },
    );
    this.diagnostics = new DiagnosticsForwarder({
      diagnostics: (uri) => vscode.languages.getDiagnostics(vscode.Uri.parse(uri)),
      own: (uri) => this.client?.diagnostics?.get(vscode.Uri.parse(uri)) ?? [],
      inWorkspace: (uri) => {
        const u = vscode.Uri.parse(uri);
        return u.scheme === 'file' && vscode.workspace.getWorkspaceFolder(u) !== undefined;
      },
      version: (uri) => vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri)?.version,
      send: (params) => {
        if (this.client?.isRunning()) {
          void this.client.sendNotification(diagnosticsMethod, params);
        }
      },
    });
    this.status.name = 'agentls';
    this.status.command = 'agentls.showRuns';
    this.updateStatus();
    this.status.show();
    this.sessionStatus.name = 'agentls session';
    this.sessionStatus.command = 'agentls.sessions';
    this.disposables.push(
      this.output,
      this.serverLog,
      this.status,
      this.sessionStatus,
      this.transcriptChanged,
      this.review,
      this.diagnostics,
      vscode.languages.onDidChangeDiagnostics((e) => {
        this.diagnostics.changed(e.uris.map((u) => u.toString()));
      }),
      vscode.workspace.registerTextDocumentContentProvider(transcriptScheme, {
        onDidChange: this.transcriptChanged.event,
        provideTextDocumentContent: (uri) => {
          const session = sessionIdOf(uri);
          if (session !== undefined) {
            return this.conversationText(session);
          }
          return this.transcript.text(runIdOf(uri)) ?? '(no transcript for this run)';
        },
      }),
      vscode.commands.registerCommand('agentls.runPrompt', () => this.runPrompt()),
      vscode.commands.registerCommand('agentls.followUp', (sessionId?: string) => this.followUp(sessionId)),
      vscode.commands.registerCommand('agentls.sessions', () => this.showSessions()),
      vscode.commands.registerCommand('agentls.revertRun', (runId?: string) => this.revertRun(runId)),
      vscode.commands.registerCommand('agentls.cancelRun', (runId?: string) => this.cancelRun(runId)),
      vscode.commands.registerCommand('agentls.showRuns', () => this.showRuns()),
      vscode.commands.registerCommand('agentls.restart', () => this.restart()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('agentls')) {
          void this.settingsChanged();
        }
      }),
    );
  }

  async start(): Promise<void> {
    const client = this.createClient();
    this.client = client;
    try {
      await client.start();
      // What the Problems panel shows already: the server compares after
      // each change with it.
      this.diagnostics.all(vscode.languages.getDiagnostics().map(([u]) => u.toString()));
    } catch (err) {
      this.output.appendLine(`agentls: cannot start "${this.settings.path} serve": ${String(err)}`);
      const open = 'Open Settings';
      void vscode.window
        .showErrorMessage(`agentls: cannot start "${this.settings.path} serve". Is agentls installed? See the setting agentls.path.`, open)
        .then((c) => (c === open ? vscode.commands.executeCommand('workbench.action.openSettings', 'agentls.path') : undefined));
    }
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client?.needsStop()) {
      await client.dispose();
    }
    this.serverGone('the agentls server stopped');
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  dispose(): void {
    void this.stop();
    for (const t of this.refresh.values()) {
      clearTimeout(t);
    }
    for (const d of this.disposables) {
      d.dispose();
    }
  }

  private createClient(): LanguageClient {
    const serverOptions: ServerOptions = { command: this.settings.path, args: ['serve'], transport: TransportKind.stdio };
    const serverSettings = (): InitializationOptions => initializationOptions(readSettings(rawSettings()).settings.server);
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: 'file' }],
      outputChannel: this.serverLog,
      initializationOptions: serverSettings,
      // The server may pull the section "agentls" (workspace/configuration)
      // and hears of changes (workspace/didChangeConfiguration). Both carry
      // only the server's own settings: it reports unknown keys.
      synchronize: { configurationSection: 'agentls' },
      middleware: {
        workspace: {
          handleApplyEdit: this.review.handleApplyEdit,
          configuration: async (params: ConfigurationParams, token, next: ConfigurationRequest.HandlerSignature) => {
            const res = await next(params, token);
            if (res instanceof ResponseError || !Array.isArray(res)) {
              return res;
            }
            return res.map((value: unknown, i) =>
              params.items[i]?.section === 'agentls'
                ? initializationOptions(readSettings(userScopeOnly(value, userServers())).settings.server)
                : value,
            );
          },
          didChangeConfiguration: () =>
            client.sendNotification(DidChangeConfigurationNotification.type, { settings: { agentls: serverSettings() } }),
        },
      },
    };
    const client = new LanguageClient('agentls', 'agentls server', serverOptions, clientOptions);
    client.onNotification(eventMethod, (payload: unknown) => {
      this.onEvent(payload);
    });
    client.onDidChangeState((e) => {
      if (e.newState === State.Stopped) {
        this.serverGone('the agentls server stopped');
      }
    });
    return client;
  }

  /** serverGone ends what waited on the server: its runs and proposals. */
  private serverGone(reason: string): void {
    this.review.rejectAll(reason);
    this.runs.stopAll(reason);
    this.updateStatus();
  }

  private loadSettings(): Settings {
    const { settings, problems } = readSettings(rawSettings());
    const text = problems.join('; ');
    if (text !== '' && text !== this.lastProblems) {
      void vscode.window.showWarningMessage(`agentls: settings ignored: ${text}`);
    }
    this.lastProblems = text;
    return settings;
  }

  private async settingsChanged(): Promise<void> {
    const old = this.settings;
    this.settings = this.loadSettings();
    if (old.path !== this.settings.path) {
      const restart = 'Restart';
      const c = await vscode.window.showInformationMessage('agentls: agentls.path changed. Restart the server? Running runs stop.', restart);
      if (c === restart) {
        await this.restart();
      }
    }
  }

  private onEvent(payload: unknown): void {
    if (!isEventNotification(payload)) {
      this.output.appendLine(`agentls: malformed ${eventMethod} notification: ${shorten(JSON.stringify(payload), 200)}`);
      return;
    }
    const ev: EventNotification = payload;
    const run = this.runs.apply(ev);
    const text = this.transcript.add(ev);
    if (text !== '') {
      this.output.append(text);
      this.refreshTranscript(ev.runId);
    }
    if (ev.type === 'edit_decided' && ev.edit?.outcome === 'withdrawn') {
      this.review.withdraw(ev.edit.path);
    }
    if (run && ev.sessionId) {
      this.refreshTranscript(sessionKey(ev.sessionId));
    }
    if (run && ev.type === 'run_end') {
      if (this.session && run.sessionId === this.session.id) {
        this.session.usage = addUsage(this.session.usage, run.usage);
        this.updateSessionStatus();
      }
      this.announce(run);
      for (const id of this.runs.prune(keepEndedRuns)) {
        this.transcript.forget(id);
      }
    }
    this.updateStatus();
  }

  /** refreshTranscript updates an open transcript, at most four times a second. */
  private refreshTranscript(runId: string): void {
    if (this.refresh.has(runId)) {
      return;
    }
    this.refresh.set(
      runId,
      setTimeout(() => {
        this.refresh.delete(runId);
        this.transcriptChanged.fire(runId.startsWith('session/') ? conversationUri(runId.slice('session/'.length)) : transcriptUri(runId));
      }, 250),
    );
  }

  private announce(run: RunInfo): void {
    if (!run.end) {
      return;
    }
    const show = 'Show Transcript';
    const follow = 'Follow up…';
    const cost = run.usage ? ` (${costLabel(run.usage)})` : '';
    const msg = `agentls: ${shorten(endMessage(run.end), 300)}${cost}`;
    const actions = run.sessionId ? [show, follow] : [show];
    const shown = run.end.reason === 'goal' ? vscode.window.showInformationMessage(msg, ...actions) : vscode.window.showWarningMessage(msg, ...actions);
    void shown.then((c) => {
      if (c === show) {
        return this.openTranscript(run.id);
      }
      if (c === follow) {
        return this.followUp(run.sessionId);
      }
      return undefined;
    });
  }

  private updateStatus(): void {
    const running = this.runs.running();
    const latest = running[0];
    if (!latest) {
      this.status.text = '$(hubot) agentls';
      this.status.tooltip = 'agentls: no run is running. Click to show runs.';
      return;
    }
    const icon = latest.waiting ? '$(eye)' : '$(sync~spin)';
    this.status.text = `${icon} agentls ${running.length}: ${shorten(latest.message, 50)}`;
    this.status.tooltip = running.map((r) => `${r.id}: ${shorten(r.prompt, 60)} — ${r.message}`).join('\n');
  }

  private runningClient(): LanguageClient | undefined {
    if (this.client?.isRunning()) {
      return this.client;
    }
    void vscode.window.showErrorMessage('agentls: the server is not running (agentls: Restart server).');
    return undefined;
  }

  private async runPrompt(follow?: CurrentSession): Promise<void> {
    const client = this.runningClient();
    if (!client) {
      return;
    }
    const editor = vscode.window.activeTextEditor;
    const doc = editor?.document.uri.scheme === 'file' ? editor.document : undefined;
    const sel = doc && editor && !editor.selection.isEmpty ? editor.selection : undefined;
    let context = 'the workspace';
    if (doc) {
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
      const res: unknown = await client.sendRequest(ExecuteCommandRequest.type, { command: 'agentls.run', arguments: [args] });
      const run = res as Partial<RunResult> | null;
      if (typeof run?.runId !== 'string') {
        throw new Error(`unexpected answer ${JSON.stringify(res)}`);
      }
      this.runs.started(run.runId, prompt, run.sessionId);
      if (run.sessionId) {
        this.session =
          follow?.id === run.sessionId
            ? { ...follow, runs: follow.runs + 1 }
            : { id: run.sessionId, title: shorten(prompt, 60), runs: 1 };
        this.updateSessionStatus();
      }
      this.updateStatus();
      this.output.show(true);
    } catch (err) {
      void vscode.window.showErrorMessage(`agentls: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** followUp continues a session: the given one, else the current one, else one the user picks. */
  private async followUp(sessionId?: string): Promise<void> {
    let target = this.session;
    if (sessionId !== undefined && sessionId !== target?.id) {
      const info = (await this.listSessions())?.sessions.find((x) => x.id === sessionId);
      target = info ? currentOf(info) : { id: sessionId, title: sessionId, runs: 0 };
    }
    if (!target) {
      target = await this.pickSession('agentls: Follow up which conversation?');
    }
    if (target) {
      await this.runPrompt(target);
    }
  }

  private async listSessions(): Promise<SessionsResult | undefined> {
    const client = this.runningClient();
    if (!client) {
      return undefined;
    }
    try {
      const res: unknown = await client.sendRequest(ExecuteCommandRequest.type, { command: 'agentls.sessions', arguments: [{ action: 'list' }] });
      return res as SessionsResult;
    } catch (err) {
      void vscode.window.showErrorMessage(`agentls: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    }
  }

  /** pickSession asks which session, and makes it the current one. */
  private async pickSession(title: string): Promise<CurrentSession | undefined> {
    const list = await this.listSessions();
    if (!list) {
      return undefined;
    }
    for (const p of list.problems ?? []) {
      this.output.appendLine(`agentls: ${p}`);
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
    this.session = currentOf(pick.session);
    this.updateSessionStatus();
    return this.session;
  }

  /** showSessions lists the conversations and does what the user picks with one. */
  private async showSessions(): Promise<void> {
    const s = await this.pickSession('agentls: Conversations');
    if (!s) {
      return;
    }
    const follow = 'Follow up…';
    const show = 'Show conversation';
    const del = 'Delete conversation';
    const action = await vscode.window.showQuickPick([follow, show, del], { title: `agentls: ${shorten(s.title, 60)}` });
    if (action === follow) {
      await this.runPrompt(s);
    } else if (action === show) {
      const doc = await vscode.workspace.openTextDocument(conversationUri(s.id));
      await vscode.window.showTextDocument(doc, { preview: true });
    } else if (action === del) {
      const sure = await vscode.window.showWarningMessage(`agentls: delete the conversation "${shorten(s.title, 60)}"? Its runs' files stay as they are.`, { modal: true }, 'Delete');
      if (sure !== 'Delete') {
        return;
      }
      const client = this.runningClient();
      try {
        await client?.sendRequest(ExecuteCommandRequest.type, { command: 'agentls.sessions', arguments: [{ action: 'delete', sessionId: s.id }] });
        if (this.session?.id === s.id) {
          this.session = undefined;
          this.updateSessionStatus();
        }
      } catch (err) {
        void vscode.window.showErrorMessage(`agentls: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }

  private updateSessionStatus(): void {
    const s = this.session;
    if (!s) {
      this.sessionStatus.hide();
      return;
    }
    this.sessionStatus.text = statusText(s);
    this.sessionStatus.tooltip = `agentls conversation ${s.id}: ${s.title}\nagentls: Follow up… continues it. Click for conversations.`;
    this.sessionStatus.show();
  }

  /** conversationText is a session's transcript as a conversation. */
  private async conversationText(sessionId: string): Promise<string> {
    const info = (await this.listSessions())?.sessions.find((s) => s.id === sessionId);
    if (!info) {
      return `(no conversation ${sessionId} in this workspace)`;
    }
    return conversation(info, (runId) => this.transcript.text(runId));
  }

  /** revertRun undoes a run's accepted changes: one proposal, reviewed like any other. */
  private async revertRun(runId?: string): Promise<void> {
    const client = this.runningClient();
    if (!client) {
      return;
    }
    if (runId === undefined) {
      const ended = this.runs.all().filter((r) => !r.running);
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
      const answer: unknown = await client.sendRequest(ExecuteCommandRequest.type, { command: 'agentls.revert', arguments: [{ runId }] });
      const res = answer as RevertResult;
      const msg = `agentls: ${shorten(res.summary, 300)}`;
      if (res.outcome === 'applied' && res.files.every((f) => !f.message)) {
        void vscode.window.showInformationMessage(msg);
      } else {
        void vscode.window.showWarningMessage(msg);
      }
      this.output.appendLine(`agentls: revert of ${runId}: ${res.summary}`);
    } catch (err) {
      void vscode.window.showErrorMessage(`agentls: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private async cancelRun(runId?: string): Promise<void> {
    const client = this.runningClient();
    if (!client) {
      return;
    }
    if (runId === undefined) {
      const running = this.runs.running();
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
      await client.sendRequest(ExecuteCommandRequest.type, { command: 'agentls.cancel', arguments: [{ runId }] });
    } catch (err) {
      void vscode.window.showErrorMessage(`agentls: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private async showRuns(): Promise<void> {
    const all = this.runs.all();
    if (all.length === 0) {
      void vscode.window.showInformationMessage('agentls: no runs yet (agentls: Run…).');
      return;
    }
    const pick = await vscode.window.showQuickPick(all.map(runItem), { title: 'agentls: Runs', placeHolder: 'Pick a run' });
    if (!pick) {
      return;
    }
    const r = pick.run;
    const show = 'Show transcript';
    const conv = 'Show conversation';
    const follow = 'Follow up…';
    const revert = 'Revert run';
    const cancel = 'Cancel run';
    const actions = [show];
    if (r.sessionId) {
      actions.push(conv, follow);
    }
    actions.push(r.running ? cancel : revert);
    const action = await vscode.window.showQuickPick(actions, { title: `agentls: ${shorten(r.prompt, 60) || r.id}` });
    switch (action) {
      case show:
        await this.openTranscript(r.id);
        break;
      case conv:
        if (r.sessionId) {
          const doc = await vscode.workspace.openTextDocument(conversationUri(r.sessionId));
          await vscode.window.showTextDocument(doc, { preview: true });
        }
        break;
      case follow:
        await this.followUp(r.sessionId);
        break;
      case revert:
        await this.revertRun(r.id);
        break;
      case cancel:
        await this.cancelRun(r.id);
        break;
    }
  }

  private async openTranscript(runId: string): Promise<void> {
    const doc = await vscode.workspace.openTextDocument(transcriptUri(runId));
    await vscode.window.showTextDocument(doc, { preview: true });
  }
}

interface RunItem extends vscode.QuickPickItem {
  run: RunInfo;
}

function runItem(r: RunInfo): RunItem {
  const icon = r.running ? (r.waiting ? '$(eye)' : '$(sync~spin)') : r.end?.reason === 'goal' ? '$(check)' : '$(warning)';
  const cost = r.usage ? ` · ${costLabel(r.usage)}` : '';
  return {
    label: `${icon} ${shorten(r.prompt, 80) || r.id}`,
    description: `${r.id} · turn ${r.turn}${cost}`,
    detail: r.message,
    run: r,
  };
}

function transcriptUri(runId: string): vscode.Uri {
  return vscode.Uri.from({ scheme: transcriptScheme, path: `/${runId}.log` });
}

function conversationUri(sessionId: string): vscode.Uri {
  return vscode.Uri.from({ scheme: transcriptScheme, path: `/session/${sessionId}.log` });
}

/** sessionKey is the refresh key of a session's conversation document. */
function sessionKey(sessionId: string): string {
  return `session/${sessionId}`;
}

/** sessionIdOf is the session of a conversation document, undefined for a run's transcript. */
function sessionIdOf(uri: vscode.Uri): string | undefined {
  const m = /^\/session\/(.+)\.log$/.exec(uri.path);
  return m ? m[1] : undefined;
}

function currentOf(s: SessionInfo): CurrentSession {
  return { id: s.id, title: s.title, runs: s.runs.length, usage: s.usage };
}

function runIdOf(uri: vscode.Uri): string {
  return uri.path.replace(/^\//, '').replace(/\.log$/, '');
}
