// The server's stderr: log/slog text lines ("time=… level=INFO msg=… k=v"),
// shown in the "agentls server" log channel at their own level rather than
// all as errors. No vscode import: unit-tested with node --test.

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface LogLine {
  level: LogLevel;
  /** The message and its attributes, without the time and level (the channel adds its own). */
  text: string;
}

const slogLine = /^time=\S+ level=(DEBUG|INFO|WARN|ERROR)(?:[+-]\d+)? (.*)$/;
const quotedMsg = /^msg=("(?:[^"\\]|\\.)*")(.*)$/;

/**
 * parseLogLine reads one line of the server's stderr. A line that is not a
 * slog line (a crash, a Go runtime message) is an error, as it is.
 */
export function parseLogLine(line: string): LogLine {
  const m = slogLine.exec(line);
  if (!m) {
    return { level: 'error', text: line };
  }
  const level = (m[1] ?? 'ERROR').toLowerCase() as LogLevel;
  let text = m[2] ?? '';
  const q = quotedMsg.exec(text);
  if (q) {
    try {
      text = (JSON.parse(q[1] ?? '""') as string) + (q[2] ?? '');
    } catch {
      // Go quoting JSON cannot read (\x00, \a): keep it as it is.
    }
  } else if (text.startsWith('msg=')) {
    text = text.slice('msg='.length);
  }
  return { level, text };
}
