// The agentls/event notification: an agent.Event (agent/event.go) plus the
// run's sequence number. Only the fields that belong to an event's type are
// set. Durations are nanoseconds, as Go's time.Duration encodes them.

export type EventType =
  | 'run_start'
  | 'turn_start'
  | 'thought'
  | 'text'
  | 'tool_call'
  | 'approval_requested'
  | 'approval_decided'
  | 'edit_proposed'
  | 'edit_decided'
  | 'tool_result'
  | 'subagent_start'
  | 'subagent_activity'
  | 'subagent_end'
  | 'compressed'
  | 'model_routed'
  | 'usage'
  | 'retry'
  | 'turn_end'
  | 'run_end';

export type StopReason = 'goal' | 'timeout' | 'max_turns' | 'aborted' | 'error' | 'no_complete_task';

export type Outcome = 'applied' | 'rejected' | 'conflict' | 'failed' | 'withdrawn';

export interface ToolCall {
  id: string;
  name: string;
  args?: unknown;
  display?: string;
}

export interface ToolResult {
  output?: string;
  isError?: boolean;
  display?: string;
  durationNs?: number;
}

export interface EditInfo {
  path: string;
  name: string;
  added: number;
  deleted: number;
  create?: boolean;
  diff?: string;
  outcome?: Outcome;
  message?: string;
  reason?: string;
  rejectedHunks?: number[];
}

export interface Approval {
  tool: string;
  command?: string;
  dir?: string;
  description?: string;
  rule?: string;
  allowed?: boolean;
}

export interface Usage {
  prompt: number;
  output: number;
  thoughts: number;
  cached: number;
}

export interface RunEnd {
  reason: StopReason;
  result?: string;
  error?: string;
  turns: number;
}

export interface Todo {
  description: string;
  status: string;
}

/** One file's part of a run's proposal (confirm: run). */
export interface FileDecision {
  name: string;
  create?: boolean;
  added: number;
  deleted: number;
  outcome: Outcome;
  message?: string;
  rejectedHunks?: number[];
}

/** What became of a run's one proposal (confirm: run), in its run_end. */
export interface ProposalReport {
  /** applied, rejected, conflict, failed, withdrawn, discarded, or none. */
  outcome: string;
  message?: string;
  files?: FileDecision[];
  /** A line for the user. */
  summary: string;
}

export interface SubagentInfo {
  runId: string;
  agent: string;
  task?: string;
  end?: RunEnd;
}

export interface AgentEvent {
  type: EventType;
  runId: string;
  parentRunId?: string;
  agent?: string;
  promptId?: string;
  turn?: number;
  time: string;
  text?: string;
  subject?: string;
  call?: ToolCall;
  result?: ToolResult;
  edit?: EditInfo;
  approval?: Approval;
  usage?: Usage;
  end?: RunEnd;
  retry?: { attempt: number; delayNs: number; error: string };
  compressed?: { before: number; after: number; method: string };
  routed?: { model: string; reason: string };
  todos?: Todo[];
  subagent?: SubagentInfo;
  inner?: AgentEvent;
  /** run_end with confirm: run: the run's one proposal. */
  proposal?: ProposalReport;
}

/** An agentls/event notification's payload. */
export interface EventNotification extends AgentEvent {
  seq: number;
}

/** The method of the structured event notification. */
export const eventMethod = 'agentls/event';

/** The name of the tool that ends a run. */
export const completeTaskName = 'complete_task';

/** isEventNotification checks the shape of a notification's payload. */
export function isEventNotification(v: unknown): v is EventNotification {
  if (typeof v !== 'object' || v === null) {
    return false;
  }
  const o = v as Record<string, unknown>;
  return typeof o.type === 'string' && typeof o.runId === 'string' && typeof o.seq === 'number';
}

/** shorten returns the first line of s, cut to n characters. */
export function shorten(s: string, n: number): string {
  let t = s.trim();
  const nl = t.indexOf('\n');
  if (nl >= 0) {
    t = t.slice(0, nl) + ' …';
  }
  const chars = Array.from(t);
  return chars.length > n ? chars.slice(0, n - 1).join('') + '…' : t;
}

/** stat formats line counts the way the server does: "+3 −1". */
export function stat(added: number, deleted: number): string {
  return `+${added} −${deleted}`;
}
