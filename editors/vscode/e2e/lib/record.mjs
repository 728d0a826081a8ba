// What happened, read from what the processes left: the runs' traces (what
// the model was told), the fake Gemini server's log of requests (what the
// model was sent) and the processes that run.

import * as fs from 'node:fs';
import * as path from 'node:path';

/** serverRunning tells whether the agentls at bin runs as a server. */
export function serverRunning(bin) {
  const want = `${bin}\0serve\0`;
  return fs.readdirSync('/proc').some((pid) => {
    try {
      return /^\d+$/.test(pid) && fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith(want);
    } catch {
      return false; // gone meanwhile
    }
  });
}

/** jsonLines reads a file of one JSON value a line. */
function jsonLines(file) {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
}

/** readRuns reads every run's trace under traces: its header and its events. */
export function readRuns(traces) {
  const out = [];
  if (!fs.existsSync(traces)) {
    return out;
  }
  // traces/<hash of the folder>/<run>.jsonl; the folder also holds
  // agentls's own files (.pruned).
  for (const sub of fs.readdirSync(traces, { withFileTypes: true }).filter((d) => d.isDirectory())) {
    for (const f of fs.readdirSync(path.join(traces, sub.name)).filter((n) => n.endsWith('.jsonl'))) {
      const recs = jsonLines(path.join(traces, sub.name, f));
      const header = recs.find((r) => r.type === 'header')?.header;
      const events = recs.filter((r) => r.type === 'event').map((r) => r.event);
      out.push({ header, events, end: events.find((e) => e.type === 'run_end')?.end });
    }
  }
  return out;
}

/**
 * readRequests reads the requests the fake Gemini server received, in
 * order: { rpc, model, contents } with contents in the API's JSON shape.
 */
export function readRequests(file) {
  if (!fs.existsSync(file)) {
    return [];
  }
  return jsonLines(file);
}

/** toolResults are a run's tool results, as the model read them. */
export function toolResults(run, name) {
  return run.events.filter((e) => e.type === 'tool_result' && e.call?.name === name).map((e) => e.result?.output ?? '');
}
