// The agentls VS Code extension: starts `agentls serve`, sends prompts to it,
// shows its runs (status bar, transcript) and reviews its proposed changes.
// This file wires the parts together: the server (server.ts), runs
// (runsui.ts), conversations (sessionsui.ts), transcript documents
// (transcriptdocs.ts), the review (review.ts), diagnostics
// (diagnostics.ts) and settings (configuration.ts).

import * as vscode from 'vscode';
import { Configuration } from './configuration';
import { DiagnosticsForwarder, diagnosticsMethod } from './diagnostics';
import { type EventNotification, eventMethod, isEventNotification, shorten } from './events';
import { Review } from './review';
import { RunsTable } from './runs';
import { Runs } from './runsui';
import { Server } from './server';
import { Sessions } from './sessionsui';
import { Transcript } from './transcript';
import { TranscriptDocs } from './transcriptdocs';

/** How many ended runs the extension keeps (in Show runs, with their transcripts). */
const keepEndedRuns = 50;

let extension: Extension | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  extension = new Extension();
  context.subscriptions.push(extension);
  await extension.start();
}

export async function deactivate(): Promise<void> {
  await extension?.stop();
}

class Extension implements vscode.Disposable {
  private readonly output = vscode.window.createOutputChannel('agentls');
  /** The server's log (its stderr, window/logMessage), shared by every client we start. */
  private readonly serverLog = vscode.window.createOutputChannel('agentls server', { log: true });
  private readonly table = new RunsTable();
  private readonly transcript = new Transcript();
  private readonly config = new Configuration();
  private readonly review: Review;
  private readonly server: Server;
  private readonly diagnostics: DiagnosticsForwarder;
  private readonly docs: TranscriptDocs;
  private readonly sessions: Sessions;
  private readonly runs: Runs;
  private readonly disposables: { dispose(): unknown }[] = [];

  constructor() {
    this.review = new Review(
      () => this.config.settings,
      (line) => {
        this.output.appendLine(line);
      },
    );
    this.server = new Server({
      settings: () => this.config.settings,
      output: this.output,
      serverLog: this.serverLog,
      handleApplyEdit: this.review.handleApplyEdit,
      event: (payload) => {
        this.onEvent(payload);
      },
      // What the Problems panel shows already: the server compares after
      // each change with it.
      started: () => {
        this.diagnostics.all(vscode.languages.getDiagnostics().map(([u]) => u.toString()));
      },
      gone: (reason) => {
        this.serverGone(reason);
      },
    });
    this.diagnostics = new DiagnosticsForwarder({
      diagnostics: (uri) => vscode.languages.getDiagnostics(vscode.Uri.parse(uri)),
      own: (uri) => this.server.client?.diagnostics?.get(vscode.Uri.parse(uri)) ?? [],
      inWorkspace: (uri) => {
        const u = vscode.Uri.parse(uri);
        return u.scheme === 'file' && vscode.workspace.getWorkspaceFolder(u) !== undefined;
      },
      version: (uri) => vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri)?.version,
      send: (params) => {
        const client = this.server.client;
        if (client?.isRunning()) {
          void client.sendNotification(diagnosticsMethod, params);
        }
      },
    });
    this.docs = new TranscriptDocs(this.transcript, (sessionId) => this.sessions.conversationText(sessionId));
    this.sessions = new Sessions({
      server: this.server,
      output: this.output,
      transcript: this.transcript,
      runPrompt: (s) => this.runs.runPrompt(s),
      openConversation: (id) => this.docs.openConversation(id),
    });
    this.runs = new Runs({
      server: this.server,
      runs: this.table,
      sessions: this.sessions,
      output: this.output,
      openTranscript: (id) => this.docs.openTranscript(id),
      openConversation: (id) => this.docs.openConversation(id),
    });
    this.disposables.push(
      this.output,
      this.serverLog,
      this.runs,
      this.sessions,
      this.review,
      this.diagnostics,
      vscode.languages.onDidChangeDiagnostics((e) => {
        this.diagnostics.changed(e.uris.map((u) => u.toString()));
      }),
      this.docs,
      vscode.commands.registerCommand('agentls.runPrompt', () => this.runs.runPrompt()),
      vscode.commands.registerCommand('agentls.followUp', (sessionId?: string) => this.sessions.followUp(sessionId)),
      vscode.commands.registerCommand('agentls.showSessions', () => this.sessions.showSessions()),
      vscode.commands.registerCommand('agentls.revertRun', (runId?: string) => this.runs.revertRun(runId)),
      vscode.commands.registerCommand('agentls.cancelRun', (runId?: string) => this.runs.cancelRun(runId)),
      vscode.commands.registerCommand('agentls.showRuns', () => this.runs.showRuns()),
      vscode.commands.registerCommand('agentls.restart', () => this.server.restart()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('agentls')) {
          void this.settingsChanged();
        }
      }),
    );
  }

  start(): Promise<void> {
    return this.server.start();
  }

  stop(): Promise<void> {
    return this.server.stop();
  }

  dispose(): void {
    void this.stop();
    for (const d of this.disposables) {
      d.dispose();
    }
  }

  /** serverGone ends what waited on the server: its runs and proposals. */
  private serverGone(reason: string): void {
    this.review.rejectAll(reason);
    this.table.stopAll(reason);
    this.runs.updateStatus();
  }

  private async settingsChanged(): Promise<void> {
    const old = this.config.reload();
    if (old.path !== this.config.settings.path) {
      const restart = 'Restart';
      const c = await vscode.window.showInformationMessage('agentls: agentls.path changed. Restart the server? Running runs stop.', restart);
      if (c === restart) {
        await this.server.restart();
      }
    }
  }

  /** onEvent takes an agentls/event notification to the runs, the transcripts, the review and the session. */
  private onEvent(payload: unknown): void {
    if (!isEventNotification(payload)) {
      this.output.appendLine(`agentls: malformed ${eventMethod} notification: ${shorten(JSON.stringify(payload), 200)}`);
      return;
    }
    const ev: EventNotification = payload;
    const run = this.table.apply(ev);
    const text = this.transcript.add(ev);
    if (text !== '') {
      this.output.append(text);
      this.docs.runChanged(ev.runId);
    }
    if (ev.type === 'edit_decided' && ev.edit?.outcome === 'withdrawn') {
      this.review.withdraw(ev.edit.path);
    }
    if (run && ev.sessionId) {
      this.docs.sessionChanged(ev.sessionId);
    }
    if (run && ev.type === 'run_end') {
      this.sessions.ended(run);
      this.runs.announce(run);
      for (const id of this.table.prune(keepEndedRuns)) {
        this.transcript.forget(id);
      }
    }
    this.runs.updateStatus();
  }
}
