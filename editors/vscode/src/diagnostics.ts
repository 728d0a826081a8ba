// The editor's diagnostics, forwarded to agentls (agentls/diagnostics,
// docs/protocol.md), so that the agent hears the problems its changes cause
// and its tool get_diagnostics lists what the Problems panel shows. When
// VS Code's diagnostics of a document change, the document is noted with
// its version at that moment; after a short debounce, each noted document's
// complete list goes to the server: every source but agentls's own, and
// only documents inside the workspace folders. No vscode import: the
// extension gives the editor's side (DiagnosticsHost), and the logic is
// unit-tested with node --test.

import type { Diagnostic, DiagnosticSeverity } from 'vscode-languageclient/node';
import type { DiagnosticsParams } from './contract';
import { type Timers, realTimers } from './timers';

/** The method of the notification. */
export const diagnosticsMethod = 'agentls/diagnostics';

/** A diagnostic as VS Code holds it (the parts sent): 0-based positions in UTF-16, severity Error = 0 … Hint = 3. */
export interface EditorDiagnostic {
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  severity: number;
  message: string;
  source?: string;
  code?: string | number | { value: string | number };
}

/** What the forwarder needs of the editor; documents are named by their URI strings. */
export interface DiagnosticsHost {
  /** The diagnostics the editor shows for uri. */
  diagnostics(uri: string): readonly EditorDiagnostic[];
  /** agentls's own diagnostics for uri (its language client's collection): never sent back. */
  own(uri: string): readonly EditorDiagnostic[];
  /** Whether uri is a file inside a workspace folder. */
  inWorkspace(uri: string): boolean;
  /** The version of the open document uri, the one its didChange carried; undefined when it is not open. */
  version(uri: string): number | undefined;
  send(params: DiagnosticsParams): void;
}

/** The default debounce, in milliseconds. */
export const debounceMs = 200;

export class DiagnosticsForwarder {
  /** The documents whose lists changed, with their versions when they did. */
  private readonly noted = new Map<string, number | undefined>();
  private timer: unknown;

  constructor(
    private readonly host: DiagnosticsHost,
    private readonly delay = debounceMs,
    private readonly timers: Timers = realTimers,
  ) {}

  /** changed notes documents whose diagnostics changed (onDidChangeDiagnostics); their lists go out after the debounce. */
  changed(uris: readonly string[]): void {
    let any = false;
    for (const uri of uris) {
      if (this.host.inWorkspace(uri)) {
        this.noted.set(uri, this.host.version(uri));
        any = true;
      }
    }
    if (!any) {
      return;
    }
    if (this.timer !== undefined) {
      this.timers.clear(this.timer);
    }
    this.timer = this.timers.set(() => {
      this.timer = undefined;
      this.flush();
    }, this.delay);
  }

  /** flush sends the noted documents' lists now. */
  flush(): void {
    const noted = [...this.noted];
    this.noted.clear();
    for (const [uri, version] of noted) {
      this.sendList(uri, version);
    }
  }

  /** all sends the lists of documents at once, such as every list the editor shows when the server starts. */
  all(uris: readonly string[]): void {
    for (const uri of uris) {
      if (this.host.inWorkspace(uri)) {
        this.noted.delete(uri);
        this.sendList(uri, this.host.version(uri));
      }
    }
  }

  dispose(): void {
    if (this.timer !== undefined) {
      this.timers.clear(this.timer);
      this.timer = undefined;
    }
    this.noted.clear();
  }

  private sendList(uri: string, version: number | undefined): void {
    const own = this.host.own(uri);
    const diagnostics = this.host
      .diagnostics(uri)
      .filter((d) => d.source !== 'agentls' && !own.some((o) => same(o, d)))
      .map(toLSP);
    const params: DiagnosticsParams = { uri, diagnostics };
    if (version !== undefined) {
      params.version = version;
    }
    this.host.send(params);
  }
}

/**
 * toLSP converts a diagnostic to the protocol's: severity Error = 1 … Hint =
 * 4. Positions are read through line and character: VS Code's Position has
 * them as getters over private fields, which a spread would not copy.
 */
export function toLSP(d: EditorDiagnostic): Diagnostic {
  const { start, end } = d.range;
  const out: Diagnostic = {
    range: { start: { line: start.line, character: start.character }, end: { line: end.line, character: end.character } },
    severity: (d.severity + 1) as DiagnosticSeverity,
    message: d.message,
  };
  if (d.source !== undefined && d.source !== '') {
    out.source = d.source;
  }
  const code = typeof d.code === 'object' ? d.code.value : d.code;
  if (code !== undefined) {
    out.code = code;
  }
  return out;
}

function same(a: EditorDiagnostic, b: EditorDiagnostic): boolean {
  return (
    a === b ||
    (a.message === b.message &&
      a.source === b.source &&
      a.severity === b.severity &&
      a.range.start.line === b.range.start.line &&
      a.range.start.character === b.range.start.character &&
      a.range.end.line === b.range.end.line &&
      a.range.end.character === b.range.end.character)
  );
}
