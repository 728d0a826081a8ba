// Sessions: conversations of runs that follow one another (the server's
// agentls.sessions), and what they cost. No vscode import: unit-tested
// with node --test.

import type { SessionsResult } from './contract';
import { type Usage, shorten } from './events';

export type SessionInfo = SessionsResult['sessions'][number];
export type SessionRun = SessionInfo['runs'][number];
export type { Usage };

/** tokens counts what a usage's calls read and wrote. */
export function tokens(u: Usage): number {
  return u.prompt + u.output + u.thoughts + (u.toolUse ?? 0);
}

/** dollars writes US dollars for people, the way the server does. */
export function dollars(v: number): string {
  if (v === 0) {
    return '$0';
  }
  if (v >= 0.1) {
    return `$${v.toFixed(2)}`;
  }
  const scale = 10 ** (1 - Math.floor(Math.log10(v)));
  return `$${String(Math.round(v * scale) / scale)}`;
}

/** costLabel is a usage's estimated cost: "$0.012", "cost unknown" for a model without a price. */
export function costLabel(u: Usage | undefined): string {
  if (!u) {
    return '';
  }
  const cost = u.cost ?? 0;
  if (u.unpriced) {
    return cost === 0 ? 'cost unknown' : `${dollars(cost)} + unpriced calls`;
  }
  return dollars(cost);
}

/** usageLabel is "12.3k tokens, $0.012". */
export function usageLabel(u: Usage | undefined): string {
  if (!u) {
    return '';
  }
  const n = tokens(u);
  const t = n >= 1000 ? `${(n / 1000).toFixed(1)}k tokens` : `${n} tokens`;
  return `${t}, ${costLabel(u)}`;
}

/** sessionItem is a session as a quick pick shows it. */
export function sessionItem(s: SessionInfo): { label: string; description: string; detail: string } {
  const runs = s.runs.length === 1 ? '1 run' : `${s.runs.length} runs`;
  const last = s.runs[s.runs.length - 1];
  return {
    label: shorten(s.title || s.id, 80),
    description: `${s.id} · ${runs} · ${costLabel(s.usage)}${s.busy ? ' · running' : ''}`,
    detail: last ? `last: ${shorten(last.prompt, 100)}` : '',
  };
}

/** The session the user is in: follow-ups go to it. */
export interface CurrentSession {
  id: string;
  title: string;
  runs: number;
  usage?: Usage;
}

/** statusText is the status bar entry of the current session. */
export function statusText(s: CurrentSession): string {
  const cost = s.usage ? ` · ${costLabel(s.usage)}` : '';
  return `$(comment-discussion) ${shorten(s.title, 30)}${cost}`;
}

/** sessionTooltip is the tooltip of the current session's status bar entry. */
export function sessionTooltip(s: CurrentSession): string {
  return `agentls conversation ${s.id}: ${s.title}\nagentls: Follow up… continues it. Click for conversations.`;
}

/** currentOf is a listed session as the current one. */
export function currentOf(s: SessionInfo): CurrentSession {
  return { id: s.id, title: s.title, runs: s.runs.length, usage: s.usage };
}

/**
 * sessionAfterRun is the current session once a run of sessionId started
 * with prompt: follow with one run more when the run followed it up, else
 * a new session named after the prompt.
 */
export function sessionAfterRun(follow: CurrentSession | undefined, sessionId: string, prompt: string): CurrentSession {
  return follow?.id === sessionId ? { ...follow, runs: follow.runs + 1 } : { id: sessionId, title: shorten(prompt, 60), runs: 1 };
}

/** addUsage sums two usages. */
export function addUsage(a: Usage | undefined, b: Usage | undefined): Usage | undefined {
  if (!a || !b) {
    return a ?? b;
  }
  return {
    prompt: a.prompt + b.prompt,
    output: a.output + b.output,
    thoughts: a.thoughts + b.thoughts,
    cached: a.cached + b.cached,
    toolUse: (a.toolUse ?? 0) + (b.toolUse ?? 0),
    cost: (a.cost ?? 0) + (b.cost ?? 0),
    unpriced: Boolean(a.unpriced) || Boolean(b.unpriced),
  };
}
