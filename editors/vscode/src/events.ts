// The agentls/event notification: an agent.Event plus the run's sequence
// number. The types are generated from the contract (contract.ts); only the
// fields that belong to an event's type are set. Durations are nanoseconds,
// as Go's time.Duration encodes them.

import type { Event, EventNotification } from './contract';

export type { EventNotification, EventType, Outcome, StopReason } from './contract';
export { eventMethod } from './contract';

export type AgentEvent = Event;
export type ToolCall = NonNullable<Event['call']>;
export type ToolResult = NonNullable<Event['result']>;
export type EditInfo = NonNullable<Event['edit']>;
export type Approval = NonNullable<Event['approval']>;
export type Usage = NonNullable<Event['usage']>;
export type RunEnd = NonNullable<Event['end']>;
export type Todo = NonNullable<Event['todos']>[number];
export type SubagentInfo = NonNullable<Event['subagent']>;

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
