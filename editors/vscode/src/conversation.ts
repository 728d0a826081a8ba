// A session's transcript as a conversation: each run is the user's turn
// (its prompt) and the agent's (what it did, and its answer). No vscode
// import: unit-tested with node --test.

import { endMessage } from './runs';
import { type SessionInfo, usageLabel } from './sessions';

/**
 * conversation renders a session. transcriptOf gives a run's own
 * transcript when the extension saw the run (its first line, the run's
 * start, is left out: the prompt stands for it); a run from before (another
 * window, a restart) is told from what the session kept: its answer.
 */
export function conversation(s: SessionInfo, transcriptOf: (runId: string) => string | undefined): string {
  const out: string[] = [`agentls conversation ${s.id}: ${s.title}`, `${s.runs.length} run${s.runs.length === 1 ? '' : 's'}, ${usageLabel(s.usage)}`];
  for (const r of s.runs) {
    out.push('', `▌ You (${r.id}):`, ...quote(r.prompt), '');
    const t = transcriptOf(r.id);
    if (t !== undefined) {
      const body = t.split('\n').slice(1).join('\n').replace(/\n+$/, '');
      out.push(body === '' ? '  (nothing yet)' : body);
    } else if (r.end) {
      out.push(`▌ agentls:`, ...quote(endMessage(r.end)));
    } else {
      out.push('▌ agentls: (the run did not finish)');
    }
    const notes: string[] = [];
    if (r.changes > 0) {
      notes.push(`${r.changes} change${r.changes === 1 ? '' : 's'} accepted`);
    }
    if (r.reverted) {
      notes.push('reverted');
    }
    if (r.end) {
      notes.push(usageLabel(r.usage));
    }
    if (notes.length > 0) {
      out.push(`  (${notes.join('; ')})`);
    }
  }
  return out.join('\n') + '\n';
}

function quote(text: string): string[] {
  return text.trim().split(/\r?\n/).map((l) => `  ${l}`);
}
