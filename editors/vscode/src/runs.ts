// The table of runs the extension knows, kept from agentls/event
// notifications. No vscode import: unit-tested with node --test.

import { type AgentEvent, type EventNotification, type ProposalReport, type RunEnd, type Usage, completeTaskName, shorten, stat } from './events';
import { costLabel } from './sessions';

export interface RunInfo {
  id: string;
  /** The task, as the user gave it. */
  prompt: string;
  running: boolean;
  turn: number;
  /** The latest progress line. */
  message: string;
  /** A proposal or approval waits for the user. */
  waiting: boolean;
  end?: RunEnd;
  /** With confirm: run, what became of the run's one proposal. */
  proposal?: ProposalReport;
  /** The session the run belongs to. */
  sessionId?: string;
  /** What the run used and cost, from its run_end. */
  usage?: Usage;
  /** When the extension first heard of the run, in ms since the epoch. */
  started: number;
  /** Bumped on every change, to find the latest active run. */
  updated: number;
}

/**
 * progressMessage is the status line for an event, or "" when the event does
 * not change it (the same choice as the server's $/progress reports).
 */
export function progressMessage(ev: AgentEvent): string {
  switch (ev.type) {
    case 'thought':
      return ev.subject ?? '';
    case 'tool_call':
      if (!ev.call) {
        return '';
      }
      if (ev.call.name === completeTaskName) {
        return 'Finishing';
      }
      return ev.call.display || `Calling ${ev.call.name}`;
    case 'approval_requested':
      return `Asking to run ${ev.approval?.command ?? ev.approval?.tool ?? 'a tool'}`;
    case 'edit_proposed':
      return ev.edit ? `Proposing change to ${ev.edit.name} (${stat(ev.edit.added, ev.edit.deleted)}); waiting for your review` : '';
    case 'edit_decided':
      return ev.edit ? `Change to ${ev.edit.name} ${ev.edit.outcome ?? 'decided'}` : '';
    case 'subagent_start':
      return ev.subagent ? `Subagent ${ev.subagent.agent}: ${shorten(ev.subagent.task ?? '', 60)}` : '';
    case 'subagent_activity':
      return ev.inner && ev.subagent ? prefixed(ev.subagent.agent, progressMessage(ev.inner)) : '';
    case 'retry':
      return ev.retry ? `Retrying the model call (attempt ${ev.retry.attempt + 1})` : '';
    case 'run_end':
      return ev.end ? endMessage(ev.end) : '';
    default:
      return '';
  }
}

function prefixed(agent: string, msg: string): string {
  return msg === '' ? '' : `${agent}: ${msg}`;
}

/** endMessage is a run's outcome in one line: the result, or why it stopped. */
export function endMessage(end: RunEnd): string {
  if (end.reason === 'goal') {
    return end.result ?? 'done';
  }
  return `stopped (${end.reason})${end.error ? ': ' + end.error : ''}`;
}

/**
 * announcement is what the user is told when a run ends: its outcome's
 * first line and, with confirm: run, what became of its proposal.
 */
export function announcement(r: RunInfo): string {
  if (!r.end) {
    return '';
  }
  const msg = shorten(endMessage(r.end), 300);
  return r.proposal?.summary ? `${msg} — ${r.proposal.summary}` : msg;
}
/** A run as a quick pick shows it. */
export interface RunItem {
  label: string;
  description: string;
  detail: string;
  run: RunInfo;
}

/** runItem is a run in a quick pick: its state, its task, its turn and cost, its latest progress. */
export function runItem(r: RunInfo): RunItem {
  const icon = r.running ? (r.waiting ? '$(eye)' : '$(sync~spin)') : r.end?.reason === 'goal' ? '$(check)' : '$(warning)';
  const cost = r.usage ? ` · ${costLabel(r.usage)}` : '';
  return {
    label: `${icon} ${shorten(r.prompt, 80) || r.id}`,
    description: `${r.id} · turn ${r.turn}${cost}`,
    detail: r.message,
    run: r,
  };
}

/** runsStatus is the status bar entry of the runs: running is RunsTable.running(), the latest first. */
export function runsStatus(running: readonly RunInfo[]): { text: string; tooltip: string } {
  const latest = running[0];
  if (!latest) {
    return { text: '$(hubot) agentls', tooltip: 'agentls: no run is running. Click to show runs.' };
  }
  const icon = latest.waiting ? '$(eye)' : '$(sync~spin)';
  return {
    text: `${icon} agentls ${running.length}: ${shorten(latest.message, 50)}`,
    tooltip: running.map((r) => `${r.id}: ${shorten(r.prompt, 60)} — ${r.message}`).join('\n'),
  };
}

/** What Show runs offers to do with a run. */
export const runAction = {
  show: 'Show transcript',
  conversation: 'Show conversation',
  followUp: 'Follow up…',
  revert: 'Revert run',
  cancel: 'Cancel run',
} as const;

/** runActions lists what Show runs offers for r: a run of a session can be followed up, a running one cancelled, an ended one reverted. */
export function runActions(r: RunInfo): string[] {
  const actions: string[] = [runAction.show];
  if (r.sessionId) {
    actions.push(runAction.conversation, runAction.followUp);
  }
  actions.push(r.running ? runAction.cancel : runAction.revert);
  return actions;
}

/** RunsTable keeps one RunInfo per top-level run. */
export class RunsTable {
  private readonly runs = new Map<string, RunInfo>();
  private readonly lastSeq = new Map<string, number>();
  private clock = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** started records a run the extension started, before its first event. */
  started(id: string, prompt: string, sessionId?: string): RunInfo {
    const r = this.ensure(id);
    if (r.prompt === '') {
      r.prompt = prompt;
    }
    r.sessionId ??= sessionId;
    return r;
  }

  /**
   * apply updates the table from one notification. It returns the run it
   * changed, or undefined for events it ignores: subagents' own events
   * (their parent reports them) and repeated sequence numbers.
   */
  apply(ev: EventNotification): RunInfo | undefined {
    if (ev.parentRunId) {
      return undefined;
    }
    const last = this.lastSeq.get(ev.runId);
    if (last !== undefined && ev.seq <= last) {
      return undefined;
    }
    this.lastSeq.set(ev.runId, ev.seq);
    const r = this.ensure(ev.runId);
    r.updated = ++this.clock;
    if (ev.turn !== undefined && ev.turn > r.turn) {
      r.turn = ev.turn;
    }
    if (ev.sessionId) {
      r.sessionId = ev.sessionId;
    }
    switch (ev.type) {
      case 'run_start':
        if (ev.text) {
          r.prompt = ev.text;
        }
        break;
      case 'edit_proposed':
      case 'approval_requested':
        r.waiting = true;
        break;
      case 'edit_decided':
      case 'approval_decided':
        r.waiting = false;
        break;
      case 'run_end':
        r.running = false;
        r.waiting = false;
        r.end = ev.end ?? { reason: 'error', error: 'the run ended without a result', turns: r.turn };
        r.proposal = ev.proposal;
        r.usage = ev.usage;
        break;
    }
    const msg = progressMessage(ev);
    if (msg !== '') {
      r.message = msg;
    }
    return r;
  }

  /**
   * stopAll marks every running run as ended, for when the server is gone:
   * no run_end will come for them.
   */
  stopAll(error: string): RunInfo[] {
    const stopped = this.running();
    for (const r of stopped) {
      r.running = false;
      r.waiting = false;
      r.end = { reason: 'error', error, turns: r.turn };
      r.message = endMessage(r.end);
      r.updated = ++this.clock;
    }
    return stopped;
  }

  /**
   * prune forgets the oldest ended runs beyond keep, and returns their ids.
   */
  prune(keep: number): string[] {
    const ended = this.all().filter((r) => !r.running);
    const gone = ended.slice(keep).map((r) => r.id);
    for (const id of gone) {
      this.runs.delete(id);
      this.lastSeq.delete(id);
    }
    return gone;
  }

  get(id: string): RunInfo | undefined {
    return this.runs.get(id);
  }

  /** running lists the running runs, the most recently active first. */
  running(): RunInfo[] {
    return this.all().filter((r) => r.running);
  }

  /** all lists every run: running ones first, then by latest activity. */
  all(): RunInfo[] {
    return [...this.runs.values()].sort((a, b) => Number(b.running) - Number(a.running) || b.updated - a.updated);
  }

  /** inSession lists the runs of a session, in the order they started. */
  inSession(sessionId: string): RunInfo[] {
    return [...this.runs.values()].filter((r) => r.sessionId === sessionId).sort((a, b) => a.started - b.started);
  }

  /** latest is the most recently active running run. */
  latest(): RunInfo | undefined {
    return this.running()[0];
  }

  private ensure(id: string): RunInfo {
    let r = this.runs.get(id);
    if (!r) {
      r = { id, prompt: '', running: true, turn: 0, message: 'Starting', waiting: false, started: this.now(), updated: ++this.clock };
      this.runs.set(id, r);
    }
    return r;
  }
}
