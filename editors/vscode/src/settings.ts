// The extension's settings (section "agentls"): validation, and the part the
// server understands (lsp/settings.go). No vscode import: unit-tested with
// node --test.

export type ReviewMode = 'refactorPreview' | 'diffEditor';

export interface CustomAction {
  title: string;
  prompt: string;
}

/** ServerSettings are the settings the server reads (lsp.Settings). */
export interface ServerSettings {
  model: string;
  confirm: 'each' | 'run';
  approvalMode: 'plan' | 'default' | 'autoEdit';
  maxTurns: number;
  timeoutMinutes: number;
  shellTimeoutSeconds: number;
  customActions: CustomAction[];
}

/** InitializationOptions are what the server gets: its settings, and events on. */
export interface InitializationOptions extends ServerSettings {
  events: true;
}

export interface Settings {
  /** The agentls binary: a name looked up on PATH, or a path. */
  path: string;
  reviewMode: ReviewMode;
  server: ServerSettings;
}

export const defaultSettings: Readonly<Settings> = Object.freeze({
  path: 'agentls',
  reviewMode: 'diffEditor',
  server: Object.freeze({
    model: 'gemini-flash-latest',
    confirm: 'each',
    approvalMode: 'default',
    maxTurns: 100,
    timeoutMinutes: 0,
    shellTimeoutSeconds: 0,
    customActions: [],
  }),
});

/** The settings only the extension reads; the server never sees them. */
export const extensionOnlyKeys: readonly string[] = ['path', 'reviewMode', 'trace'];

/** The settings the server reads. */
export const serverKeys: readonly (keyof ServerSettings)[] = [
  'model',
  'confirm',
  'approvalMode',
  'maxTurns',
  'timeoutMinutes',
  'shellTimeoutSeconds',
  'customActions',
];

type Checked<T> = { ok: true; value: T } | { ok: false; problem: string };
type Check<T> = (v: unknown) => Checked<T>;

const ok = <T>(value: T): Checked<T> => ({ ok: true, value });
const bad = <T>(problem: string): Checked<T> => ({ ok: false, problem });
const wrongType = <T>(v: unknown): Checked<T> => bad(`wrong type (${JSON.stringify(v)})`);

const oneOf =
  <T extends string>(...values: T[]): Check<T> =>
  (v) => {
    if (typeof v !== 'string') {
      return wrongType(v);
    }
    return (values as string[]).includes(v) ? ok(v as T) : bad(`"${v}" is not one of ${values.join(', ')}`);
  };

const nonEmpty: Check<string> = (v) => {
  if (typeof v !== 'string') {
    return wrongType(v);
  }
  return v.trim() === '' ? bad('must not be empty') : ok(v);
};

const positiveInt: Check<number> = (v) => {
  if (typeof v !== 'number' || !Number.isInteger(v)) {
    return wrongType(v);
  }
  return v <= 0 ? bad(`must be positive, not ${v}`) : ok(v);
};

const nonNegative: Check<number> = (v) => {
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    return wrongType(v);
  }
  return v < 0 ? bad(`must not be negative, not ${v}`) : ok(v);
};

const actions: Check<CustomAction[]> = (v) => {
  if (!Array.isArray(v)) {
    return wrongType(v);
  }
  const out: CustomAction[] = [];
  for (const [i, a] of (v as unknown[]).entries()) {
    const o = typeof a === 'object' && a !== null ? (a as Record<string, unknown>) : {};
    const { title, prompt } = o;
    if (typeof title !== 'string' || typeof prompt !== 'string' || title.trim() === '' || prompt.trim() === '') {
      return bad(`action ${i + 1} needs a title and a prompt`);
    }
    out.push({ title, prompt });
  }
  return ok(out);
};

const serverChecks: { [K in keyof ServerSettings]: Check<ServerSettings[K]> } = {
  model: nonEmpty,
  confirm: oneOf('each', 'run'),
  approvalMode: oneOf('plan', 'default', 'autoEdit'),
  maxTurns: positiveInt,
  timeoutMinutes: nonNegative,
  shellTimeoutSeconds: nonNegative,
  customActions: actions,
};

const checkPath = nonEmpty;
const checkReviewMode = oneOf<ReviewMode>('refactorPreview', 'diffEditor');

/**
 * readSettings validates the "agentls" settings section with the server's
 * rules. Missing keys take their defaults; a bad value keeps its default and
 * is reported, as is an unknown key.
 */
export function readSettings(raw: unknown): { settings: Settings; problems: string[] } {
  const server: ServerSettings = { ...defaultSettings.server, customActions: [] };
  const settings: Settings = { path: defaultSettings.path, reviewMode: defaultSettings.reviewMode, server };
  const problems: string[] = [];
  if (raw === undefined || raw === null) {
    return { settings, problems };
  }
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    return { settings, problems: ['settings must be an object'] };
  }
  const entries = Object.entries(raw as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [key, value] of entries) {
    if (value === undefined || value === null) {
      continue; // unset
    }
    let problem: string | undefined;
    if (key === 'path') {
      const c = checkPath(value);
      if (c.ok) {
        settings.path = c.value.trim();
      } else {
        problem = c.problem;
      }
    } else if (key === 'reviewMode') {
      const c = checkReviewMode(value);
      if (c.ok) {
        settings.reviewMode = c.value;
      } else {
        problem = c.problem;
      }
    } else if (isServerKey(key)) {
      problem = setServer(server, key, value);
    } else if (!extensionOnlyKeys.includes(key)) {
      problems.push(`unknown setting "${key}"`);
    }
    if (problem !== undefined) {
      problems.push(`${key}: ${problem}`);
    }
  }
  return { settings, problems };
}

function isServerKey(k: string): k is keyof ServerSettings {
  return (serverKeys as readonly string[]).includes(k);
}

/** setServer sets s[key] to value if it passes its check, else returns the problem. */
// K ties the key to its check's value type.
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
function setServer<K extends keyof ServerSettings>(s: ServerSettings, key: K, value: unknown): string | undefined {
  const c = serverChecks[key](value);
  if (!c.ok) {
    return c.problem;
  }
  s[key] = c.value;
  return undefined;
}

/** initializationOptions are the server's settings with events turned on. */
export function initializationOptions(s: ServerSettings): InitializationOptions {
  return { ...s, customActions: s.customActions.map((a) => ({ ...a })), events: true };
}
