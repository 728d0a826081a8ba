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
import { type EventNotification, eventMethod, isEventNotification, shorten } from './events';
import { Review } from './review';
import { type RunInfo, RunsTable, endMessage } from './runs';
import { type InitializationOptions, type Settings, initializationOptions, readSettings, userScopeOnly } from './settings';
import { Transcript } from './transcript';

const transcriptScheme = 'agentls-transcript';
const keepEndedRuns = 50;

/** The arguments of the server's agentls.run command. */
interface RunArgs {
  prompt: string;
  uri?: string;
  range?: Range;
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
  private readonly runs = new RunsTable();
  private readonly transcript = new Transcript();
  private readonly transcriptChanged = new vscode.EventEmitter<vscode.Uri>();
  private readonly review: Review;
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
    this.status.name = 'agentls';
    this.status.command = 'agentls.showRuns';
    this.updateStatus();
    this.status.show();
    this.disposables.push(
      this.output,
      this.serverLog,
      this.status,
      this.transcriptChanged,
      this.review,
      vscode.workspace.registerTextDocumentContentProvider(transcriptScheme, {
        onDidChange: this.transcriptChanged.event,
        provideTextDocumentContent: (uri) => this.transcript.text(runIdOf(uri)) ?? '(no transcript for this run)',
      }),
      vscode.commands.registerCommand('agentls.runPrompt', () => this.runPrompt()),
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
    if (run && ev.type === 'run_end') {
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
        this.transcriptChanged.fire(transcriptUri(runId));
      }, 250),
    );
  }

  private announce(run: RunInfo): void {
    if (!run.end) {
      return;
    }
    const show = 'Show Transcript';
    const msg = `agentls: ${shorten(endMessage(run.end), 300)}`;
    const shown = run.end.reason === 'goal' ? vscode.window.showInformationMessage(msg, show) : vscode.window.showWarningMessage(msg, show);
    void shown.then((c) => (c === show ? this.openTranscript(run.id) : undefined));
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

  private async runPrompt(): Promise<void> {
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
      title: 'agentls: Run',
      prompt: `Context: ${context}`,
      placeHolder: 'What should the agent do?',
      ignoreFocusOut: true,
      validateInput: (v) => (v.trim() === '' ? 'Say what the agent should do.' : undefined),
    });
    if (prompt === undefined || prompt.trim() === '') {
      return;
    }
    const args: RunArgs = { prompt };
    if (doc) {
      args.uri = client.code2ProtocolConverter.asUri(doc.uri);
      if (sel) {
        // VS Code positions are UTF-16, the encoding the server uses with VS Code.
        args.range = client.code2ProtocolConverter.asRange(sel);
      }
    }
    try {
      const res: unknown = await client.sendRequest(ExecuteCommandRequest.type, { command: 'agentls.run', arguments: [args] });
      const runId = typeof res === 'object' && res !== null ? (res as { runId?: unknown }).runId : undefined;
      if (typeof runId !== 'string') {
        throw new Error(`unexpected answer ${JSON.stringify(res)}`);
      }
      this.runs.started(runId, prompt);
      this.updateStatus();
      this.output.show(true);
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
    const pick = await vscode.window.showQuickPick(all.map(runItem), { title: 'agentls: Runs', placeHolder: 'Show the transcript of…' });
    if (pick) {
      await this.openTranscript(pick.run.id);
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
  return {
    label: `${icon} ${shorten(r.prompt, 80) || r.id}`,
    description: `${r.id} · turn ${r.turn}`,
    detail: r.message,
    run: r,
  };
}

function transcriptUri(runId: string): vscode.Uri {
  return vscode.Uri.from({ scheme: transcriptScheme, path: `/${runId}.log` });
}

function runIdOf(uri: vscode.Uri): string {
  return uri.path.replace(/^\//, '').replace(/\.log$/, '');
}
