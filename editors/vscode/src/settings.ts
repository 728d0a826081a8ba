// The extension's settings (section "agentls"): validation, and the part the
// server understands. The server's part is read from the contract
// (contract.ts, generated from package contract): its types, defaults and
// rules. No vscode import: unit-tested with node --test.

import {
  type PluginSetting,
  type Settings as ContractSettings,
  defaultSettings as serverDefaults,
  pluginSettings,
  settingsSchema,
} from './contract';

export type ReviewMode = 'refactorPreview' | 'diffEditor';

/** ServerSettings are the settings the server reads that the user sets (contract.ts). */
export type ServerSettings = Omit<ContractSettings, PluginSetting>;

export type CustomAction = ServerSettings['customActions'][number];

/**
 * InitializationOptions are what the server gets: its settings, with events
 * and diagnostics on, and that the extension shows how runs end (so the
 * server does not).
 */
export interface InitializationOptions extends ServerSettings {
  events: true;
  diagnostics: true;
  clientShowsResults: true;
}

export interface Settings {
  /** The agentls binary: a name looked up on PATH, or a path. */
  path: string;
  reviewMode: ReviewMode;
  /** Save the files of a change once it is accepted. */
  saveOnAccept: boolean;
  server: ServerSettings;
}

function serverDefaultSettings(): ServerSettings {
  const entries = Object.entries(serverDefaults).filter(([k]) => !(pluginSettings as readonly string[]).includes(k));
  return { ...(Object.fromEntries(entries) as ServerSettings), customActions: [], prices: {} };
}

export const defaultSettings: Readonly<Settings> = Object.freeze({
  path: 'agentls',
  reviewMode: 'diffEditor',
  saveOnAccept: true,
  server: Object.freeze(serverDefaultSettings()),
});

/** The settings only the extension reads; the server never sees them. */
export const extensionOnlyKeys: readonly string[] = ['path', 'reviewMode', 'saveOnAccept', 'trace'];

/** The settings the server reads that the user sets, from the contract's schema. */
export const serverKeys: readonly (keyof ServerSettings)[] = Object.keys(settingsSchema.properties).filter(
  (k) => !(pluginSettings as readonly string[]).includes(k),
) as (keyof ServerSettings)[];

type Checked<T> = { ok: true; value: T } | { ok: false; problem: string };
type Check<T> = (v: unknown) => Checked<T>;

const ok = <T>(value: T): Checked<T> => ({ ok: true, value });
const bad = <T>(problem: string): Checked<T> => ({ ok: false, problem });
const wrongType = <T>(v: unknown): Checked<T> => bad(`wrong type (${JSON.stringify(v)})`);

const oneOf =
  <T extends string>(...values: readonly T[]): Check<T> =>
  (v) => {
    if (typeof v !== 'string') {
      return wrongType(v);
    }
    return (values as readonly string[]).includes(v) ? ok(v as T) : bad(`"${v}" is not one of ${values.join(', ')}`);
  };

const nonEmpty: Check<string> = (v) => {
  if (typeof v !== 'string') {
    return wrongType(v);
  }
  return v.trim() === '' ? bad('must not be empty') : ok(v);
};

/** A property of a JSON Schema, as far as the settings' schema uses them. */
interface Property {
  type?: string | readonly string[];
  enum?: readonly string[];
  pattern?: string;
  minimum?: number;
  exclusiveMinimum?: number;
  items?: { type?: string; properties?: Record<string, Property> };
  additionalProperties?: { type?: string; properties?: Record<string, Property>; required?: readonly string[] };
}

/**
 * checkProperty checks v against a property of the settings' schema, and
 * says what is wrong in the server's words.
 */
function checkProperty(p: Property, v: unknown): Checked<unknown> {
  switch (p.type) {
    case 'string':
      if (p.enum) {
        return oneOf(...p.enum)(v);
      }
      if (typeof v !== 'string') {
        return wrongType(v);
      }
      return p.pattern !== undefined && !new RegExp(p.pattern).test(v) ? bad('must not be empty') : ok(v);
    case 'integer':
    case 'number':
      if (typeof v !== 'number' || !Number.isFinite(v) || (p.type === 'integer' && !Number.isInteger(v))) {
        return wrongType(v);
      }
      if (p.exclusiveMinimum !== undefined && v <= p.exclusiveMinimum) {
        return bad(`must be positive, not ${v}`);
      }
      return p.minimum !== undefined && v < p.minimum ? bad(`must not be negative, not ${v}`) : ok(v);
    case 'boolean':
      return typeof v === 'boolean' ? ok(v) : wrongType(v);
    case 'array':
      return checkActions(p, v);
    case 'object':
      // mcpServers: the server checks each server and names what is wrong.
      return typeof v === 'object' && v !== null && !Array.isArray(v) ? ok(v) : wrongType(v);
  }
  return wrongType(v);
}

/**
 * checkPrices checks an object of objects (the prices, by model name)
 * against the schema of its values.
 */
function checkPrices(p: Property, v: unknown): Checked<unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    return wrongType(v);
  }
  const props = p.additionalProperties?.properties ?? {};
  const out: Record<string, Record<string, unknown>> = {};
  for (const [name, price] of Object.entries(v as Record<string, unknown>)) {
    if (name.trim() === '') {
      return bad('a price needs a model name');
    }
    if (typeof price !== 'object' || price === null || Array.isArray(price)) {
      return wrongType(v);
    }
    const o = price as Record<string, unknown>;
    const unknown = Object.keys(o).find((k) => !(k in props));
    if (unknown !== undefined) {
      return bad(`unknown field "${unknown}"`);
    }
    for (const k of p.additionalProperties?.required ?? []) {
      if (!(k in o)) {
        return wrongType(v);
      }
    }
    for (const [k, x] of Object.entries(o)) {
      const kp = props[k];
      if (kp && !checkProperty(kp, x).ok) {
        return typeof x === 'number' && x < 0 ? bad(`${name}: prices must not be negative`) : wrongType(v);
      }
    }
    out[name] = { ...o };
  }
  return ok(out);
}

/** checkActions checks an array of objects whose properties are non-empty strings. */
function checkActions(p: Property, v: unknown): Checked<unknown> {
  if (!Array.isArray(v)) {
    return wrongType(v);
  }
  const props = p.items?.properties ?? {};
  const out: Record<string, unknown>[] = [];
  for (const [i, a] of (v as unknown[]).entries()) {
    const o = typeof a === 'object' && a !== null ? (a as Record<string, unknown>) : {};
    const unknown = Object.keys(o).find((k) => !(k in props));
    if (unknown !== undefined) {
      return bad(`unknown field "${unknown}"`);
    }
    for (const [k, kp] of Object.entries(props)) {
      if (!checkProperty(kp, o[k]).ok) {
        return bad(`action ${i + 1} needs a title and a prompt`);
      }
    }
    out.push({ ...o });
  }
  return ok(out);
}

const checkPath = nonEmpty;
const checkReviewMode = oneOf<ReviewMode>('refactorPreview', 'diffEditor');

/**
 * readSettings validates the "agentls" settings section with the server's
 * rules. Missing keys take their defaults; a bad value keeps its default and
 * is reported, as is an unknown key.
 */
export function readSettings(raw: unknown): { settings: Settings; problems: string[] } {
  const server: ServerSettings = { ...defaultSettings.server, customActions: [], prices: {} };
  const settings: Settings = { path: defaultSettings.path, reviewMode: defaultSettings.reviewMode, saveOnAccept: defaultSettings.saveOnAccept, server };
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
    } else if (key === 'saveOnAccept') {
      if (typeof value === 'boolean') {
        settings.saveOnAccept = value;
      } else {
        problem = `wrong type (${JSON.stringify(value)})`;
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
  const c = key === 'prices' ? checkPrices(settingsSchema.properties[key], value) : checkProperty(settingsSchema.properties[key], value);
  if (!c.ok) {
    return c.problem;
  }
  s[key] = c.value as ServerSettings[K];
  return undefined;
}

/**
 * initializationOptions are the server's settings with events turned on
 * (agentls/event feeds the runs and the transcript), diagnostics (the
 * extension sends agentls/diagnostics, diagnostics.ts) and clientShowsResults
 * (the extension announces every run's end itself).
 */
export function initializationOptions(s: ServerSettings): InitializationOptions {
  return {
    ...s,
    customActions: s.customActions.map((a) => ({ ...a })),
    prices: { ...s.prices },
    events: true,
    diagnostics: true,
    clientShowsResults: true,
  };
}

/**
 * userScopeOnly gives the section the user-scope value of mcpServers
 * (inspect().globalValue), whatever the workspace's settings say: a server
 * starts a program, and a repository's .vscode/settings.json is anyone's.
 * A workspace's own servers go in its .agentls/settings.json, which the
 * server reads only in a folder the user trusts.
 */
export function userScopeOnly(section: unknown, userServers: unknown): unknown {
  if (typeof section !== 'object' || section === null || Array.isArray(section)) {
    return section;
  }
  const out: Record<string, unknown> = { ...(section as Record<string, unknown>) };
  if (userServers === undefined) {
    delete out.mcpServers;
  } else {
    out.mcpServers = userServers;
  }
  return out;
}

/**
 * configurationAnswer is the answer to the server's workspace/configuration
 * request, from VS Code's values for its items: the section "agentls"
 * becomes the server's own settings (with events turned on, and the user's
 * mcpServers only); other sections go as they are.
 */
export function configurationAnswer(items: readonly { section?: string }[], values: readonly unknown[], userServers: () => unknown): unknown[] {
  return values.map((value, i) =>
    items[i]?.section === 'agentls' ? initializationOptions(readSettings(userScopeOnly(value, userServers())).settings.server) : value,
  );
}
