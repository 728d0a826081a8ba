// Transcripts rendered from agentls/event notifications: one text per run,
// and the interleaved text of the shared output channel. No vscode import:
// unit-tested with node --test.

import { type FileDecision, type RenderedEvent, type Todo, type Usage, completeTaskName, shorten, stat } from './events';

/**
 * A Block is an event's rendering: stream text (model text chunks, which
 * continue the current line) or whole lines.
 */
export type Block = { kind: 'stream'; text: string } | { kind: 'lines'; lines: string[] };

const none: Block = { kind: 'lines', lines: [] };

/** ThoughtState carries the thought subject over from one chunk to the next. */
export interface ThoughtState {
  subject?: string;
}

/** render turns one event into a Block; state tracks thought subjects. */
export function render(ev: RenderedEvent, state: ThoughtState): Block {
  const lines = (...ls: string[]): Block => ({ kind: 'lines', lines: ls });
  switch (ev.type) {
    case 'run_start':
      return lines(`▶ run ${ev.runId}: ${ev.text ?? ''}`.trimEnd());
    case 'turn_start':
      state.subject = undefined;
      return lines(`── turn ${ev.turn ?? '?'}`);
    case 'thought':
      if (!ev.subject || ev.subject === state.subject) {
        return none;
      }
      state.subject = ev.subject;
      return lines(`  thinking: ${ev.subject}`);
    case 'text':
      return ev.text ? { kind: 'stream', text: ev.text } : none;
    case 'tool_call':
      if (!ev.call || ev.call.name === completeTaskName) {
        return none;
      }
      return lines(`  → ${ev.call.display || `${ev.call.name} ${argsSummary(ev.call.args)}`.trimEnd()}`);
    case 'tool_result': {
      if (!ev.call || ev.call.name === completeTaskName) {
        return none;
      }
      const r = ev.result ?? {};
      const what = r.display || shorten(r.output ?? '', 100) || (r.isError ? 'failed' : 'done');
      return lines(`  ${r.isError ? '✗' : '←'} ${ev.call.name}: ${what}`, ...(ev.todos ?? []).map(todoLine));
    }
    case 'approval_requested': {
      const a = ev.approval;
      if (!a) {
        return none;
      }
      const action = a.command ? `${a.tool}: ${a.command}` : a.tool;
      return lines(`  ? ${action}${a.dir ? ` (in ${a.dir})` : ''}: waiting for approval`);
    }
    case 'approval_decided': {
      const a = ev.approval;
      return a ? lines(`  ? ${a.command ?? a.tool}: ${a.allowed ? 'allowed' : 'denied'}`) : none;
    }
    case 'edit_proposed': {
      const e = ev.edit;
      if (!e) {
        return none;
      }
      const head = `  ✎ ${e.create ? 'new file' : 'change to'} ${e.name} (${stat(e.added, e.deleted)})${e.reason ? ': ' + e.reason : ''}`;
      return lines(head, ...diffLines(e.diff));
    }
    case 'edit_decided': {
      const e = ev.edit;
      if (!e) {
        return none;
      }
      let line = `  ✎ ${e.name}: ${e.outcome ?? 'decided'}`;
      if (e.message) {
        line += ` (${e.message})`;
      }
      if (e.rejectedHunks && e.rejectedHunks.length > 0) {
        line += `; rejected hunks ${e.rejectedHunks.map((h) => h + 1).join(', ')}`;
      }
      return lines(line);
    }
    case 'subagent_start':
      return ev.subagent ? lines(`  ⤷ subagent ${ev.subagent.agent}: ${shorten(ev.subagent.task ?? '', 120)}`) : none;
    case 'subagent_activity': {
      // One line per inner tool call: the subagent's box, not every step.
      const inner = ev.inner;
      if (!inner || !ev.subagent || (inner.type !== 'tool_call' && inner.type !== 'tool_result')) {
        return none;
      }
      const b = render(inner, {});
      return b.kind === 'lines' ? lines(...b.lines.map((l) => `    ${ev.subagent?.agent ?? ''} ${l.trimStart()}`)) : none;
    }
    case 'subagent_end': {
      const s = ev.subagent;
      if (!s) {
        return none;
      }
      const end = s.end;
      return lines(`  ⤶ subagent ${s.agent}: ${end ? end.reason + (end.error ? ': ' + end.error : '') : 'ended'}`);
    }
    case 'compressed':
      return ev.compressed
        ? lines(`  … history compressed: ${ev.compressed.before} → ${ev.compressed.after} tokens (${ev.compressed.method})`)
        : none;
    case 'model_routed':
      return ev.routed ? lines(`  … model ${ev.routed.model}${ev.routed.reason ? ': ' + ev.routed.reason : ''}`) : none;
    case 'retry':
      return ev.retry
        ? lines(`  … model call failed (attempt ${ev.retry.attempt}), retrying in ${seconds(ev.retry.delayNs)}: ${shorten(ev.retry.error, 200)}`)
        : none;
    case 'run_end': {
      const end = ev.end;
      if (!end) {
        return lines('■ run ended');
      }
      const turns = `${end.turns} turn${end.turns === 1 ? '' : 's'}`;
      const out =
        end.reason === 'goal'
          ? [`■ done after ${turns}${end.result ? ':' : ''}`, ...(end.result ? indent(end.result) : [])]
          : [`■ stopped (${end.reason}) after ${turns}${end.error ? ': ' + end.error : ''}`];
      const p = ev.proposal;
      if (p && p.summary) {
        out.push(`  ✎ ${p.summary}`, ...(p.files ?? []).map(fileDecisionLine));
      }
      if (ev.usage) {
        out.push(`  tokens: ${usageLine(ev.usage)}`);
      }
      return lines(...out);
    }
    default:
      // usage, turn_end: nothing to show.
      return none;
  }
}

function fileDecisionLine(f: FileDecision): string {
  let line = `    ${f.name}${f.create ? ' (new)' : ''}: ${f.outcome}`;
  if (f.message) {
    line += ` (${shorten(f.message, 200)})`;
  }
  if (f.rejectedHunks && f.rejectedHunks.length > 0) {
    line += `; rejected hunks ${f.rejectedHunks.map((h) => h + 1).join(', ')}`;
  }
  return line;
}

function argsSummary(args: unknown): string {
  if (args === undefined || args === null) {
    return '';
  }
  return shorten(JSON.stringify(args), 80);
}

function todoLine(t: Todo): string {
  const mark: Record<string, string> = { completed: 'x', in_progress: '>', cancelled: '-' };
  return `    [${mark[t.status] ?? ' '}] ${t.description}`;
}

function diffLines(diff: string | undefined): string[] {
  if (!diff) {
    return [];
  }
  return indent(diff.replace(/\n$/, ''), '      ');
}

function indent(text: string, prefix = '  '): string[] {
  return text.split(/\r?\n/).map((l) => (l === '' ? '' : prefix + l));
}

function seconds(ns: number): string {
  return `${Math.round(ns / 1e8) / 10}s`;
}

function usageLine(u: Usage): string {
  return `${u.prompt} prompt, ${u.output} output, ${u.thoughts} thoughts, ${u.cached} cached`;
}

/**
 * A TextSink is text that only grows and knows whether it is at a line
 * start; it keeps the text itself only when asked to.
 */
class TextSink {
  text = '';
  private atLineStart = true;

  constructor(private readonly keep: boolean) {}

  /** put appends b and returns what it appended. */
  put(b: Block, header?: string): string {
    let out: string;
    if (b.kind === 'stream') {
      if (b.text === '') {
        return '';
      }
      out = (header !== undefined ? this.breakLine() + header + '\n' : '') + b.text;
    } else {
      if (b.lines.length === 0) {
        return '';
      }
      out = this.breakLine() + (header !== undefined ? header + '\n' : '') + b.lines.join('\n') + '\n';
    }
    if (this.keep) {
      this.text += out;
    }
    this.atLineStart = out.endsWith('\n');
    return out;
  }

  private breakLine(): string {
    return this.atLineStart ? '' : '\n';
  }
}

interface RunTranscript {
  sink: TextSink;
  thought: ThoughtState;
  /** Where the run's start (its prompt, of one line or many) ends in sink.text. */
  afterStart: number;
}

/**
 * Transcript keeps each run's text and renders the shared channel, where
 * runs interleave: a header names the run whenever the channel switches to
 * another run.
 */
export class Transcript {
  private readonly runs = new Map<string, RunTranscript>();
  private readonly channel = new TextSink(false);
  private current?: string;

  /**
   * add renders one event into its run's text, and returns the text to
   * append to the shared channel ("" when the event shows nothing).
   * Subagents' own events are rendered by their parent (subagent_activity).
   */
  add(ev: RenderedEvent): string {
    if (ev.parentRunId) {
      return '';
    }
    let run = this.runs.get(ev.runId);
    if (!run) {
      run = { sink: new TextSink(true), thought: {}, afterStart: 0 };
      this.runs.set(ev.runId, run);
    }
    const block = render(ev, run.thought);
    if (run.sink.put(block) === '') {
      return '';
    }
    if (ev.type === 'run_start') {
      run.afterStart = run.sink.text.length;
    }
    const header = this.current !== ev.runId && ev.type !== 'run_start' ? `[${ev.runId}]` : undefined;
    this.current = ev.runId;
    return this.channel.put(block, header);
  }

  /** text is a run's transcript so far, or undefined for an unknown run. */
  text(runId: string): string | undefined {
    return this.runs.get(runId)?.sink.text;
  }

  /** body is a run's transcript after its start (the prompt), or undefined for an unknown run. */
  body(runId: string): string | undefined {
    const run = this.runs.get(runId);
    return run?.sink.text.slice(run.afterStart);
  }

  forget(runId: string): void {
    this.runs.delete(runId);
  }
}

/** The scheme of the read-only documents that show a run's transcript or a session's conversation. */
export const transcriptScheme = 'agentls-transcript';

/**
 * A transcript document is named by a key: a run's id for its transcript,
 * sessionKey(id) for a session's conversation. docPath is the key's
 * document path: "/main-1.log", "/session/s-1.log".
 */
export function docPath(key: string): string {
  return `/${key}.log`;
}

/** sessionKey is the key of a session's conversation document. */
export function sessionKey(sessionId: string): string {
  return `session/${sessionId}`;
}

/** sessionIdOf is the session of a conversation document's path, undefined for a run's transcript. */
export function sessionIdOf(path: string): string | undefined {
  const m = /^\/session\/(.+)\.log$/.exec(path);
  return m ? m[1] : undefined;
}

/** runIdOf is the run of a transcript document's path. */
export function runIdOf(path: string): string {
  return path.replace(/^\//, '').replace(/\.log$/, '');
}
