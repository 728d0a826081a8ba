// What the extension tells the user in a notification: how a run ended, what
// a revert did, why the server did not start. Each says whether it is a
// warning and which buttons it has. No vscode import: unit-tested with
// node --test.

import type { RevertResult } from './contract';
import { shorten } from './events';
import { type RunInfo, announcement } from './runs';
import { costLabel } from './sessions';

/** A notification: its text, whether it warns, its buttons. */
export interface Notice {
  text: string;
  warn: boolean;
  actions: string[];
}

/** The buttons of a run's end. */
export const endAction = { show: 'Show Transcript', followUp: 'Follow up…' } as const;

/**
 * runEndNotice announces a run's end: its outcome, what became of its
 * proposal, what it cost; a run that did not reach its goal warns. A run
 * of a session can be followed up. undefined while the run has not ended.
 */
export function runEndNotice(run: RunInfo): Notice | undefined {
  if (!run.end) {
    return undefined;
  }
  const cost = run.usage ? ` (${costLabel(run.usage)})` : '';
  return {
    text: `agentls: ${announcement(run)}${cost}`,
    warn: run.end.reason !== 'goal',
    actions: run.sessionId ? [endAction.show, endAction.followUp] : [endAction.show],
  };
}

/** revertNotice tells what a revert did; it warns unless every file was reverted as it was. */
export function revertNotice(res: RevertResult): Notice {
  return {
    text: `agentls: ${shorten(res.summary, 300)}`,
    warn: !(res.outcome === 'applied' && res.files.every((f) => !f.message)),
    actions: [],
  };
}

/** An error whose one button opens the settings at a query. */
export interface StartFailure {
  text: string;
  button: string;
  /** The command the button runs: VS Code's Open (Remote) Settings. */
  command: string;
  query: string;
}

/**
 * startFailure says that `<path> serve` did not start, and where to set
 * agentls.path. It is a machine setting: in a remote window (remote is
 * vscode.env.remoteName: code-server, Remote-SSH, WSL, Dev Containers,
 * Codespaces) VS Code reads it only from the Remote settings, and the User
 * settings show nothing for it.
 */
export function startFailure(path: string, remote: string | undefined): StartFailure {
  const where = remote
    ? `Set agentls.path in the Remote settings (${remote}): in a remote window, VS Code ignores it in the User settings.`
    : 'See the setting agentls.path.';
  return {
    text: `agentls: cannot start "${path} serve". Is agentls installed? ${where}`,
    button: remote ? 'Open Remote Settings' : 'Open Settings',
    command: remote ? 'workbench.action.openRemoteSettings' : 'workbench.action.openSettings',
    query: 'agentls.path',
  };
}
