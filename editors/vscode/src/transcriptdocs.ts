// The read-only documents of runs' transcripts and sessions' conversations
// (scheme agentls-transcript): they follow their runs while open.

import * as vscode from 'vscode';
import { Refresher } from './refresh';
import { type Transcript, docPath, runIdOf, sessionIdOf, sessionKey, transcriptScheme } from './transcript';

export class TranscriptDocs implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  private readonly refresher = new Refresher((key) => {
    this.changed.fire(uriOf(key));
  });
  private readonly registration: vscode.Disposable;

  /** conversationText renders a session's conversation. */
  constructor(
    private readonly transcript: Transcript,
    private readonly conversationText: (sessionId: string) => Promise<string>,
  ) {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(transcriptScheme, {
      onDidChange: this.changed.event,
      provideTextDocumentContent: (uri) => {
        const session = sessionIdOf(uri.path);
        if (session !== undefined) {
          return this.conversationText(session);
        }
        return this.transcript.text(runIdOf(uri.path)) ?? '(no transcript for this run)';
      },
    });
  }

  /** runChanged updates a run's open transcript, at most four times a second. */
  runChanged(runId: string): void {
    this.refresher.touch(runId);
  }

  /** sessionChanged updates a session's open conversation, at most four times a second. */
  sessionChanged(sessionId: string): void {
    this.refresher.touch(sessionKey(sessionId));
  }

  async openTranscript(runId: string): Promise<void> {
    await show(uriOf(runId));
  }

  async openConversation(sessionId: string): Promise<void> {
    await show(uriOf(sessionKey(sessionId)));
  }

  dispose(): void {
    this.refresher.dispose();
    this.changed.dispose();
    this.registration.dispose();
  }
}

function uriOf(key: string): vscode.Uri {
  return vscode.Uri.from({ scheme: transcriptScheme, path: docPath(key) });
}

async function show(uri: vscode.Uri): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.window.showTextDocument(doc, { preview: true });
}
