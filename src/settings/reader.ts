/**
 * One reader of settings for every platform (Node server, Lambda, Workers) from a table: each setting's
 * name, environment variable, config file key, type, default and check. A variable that is set wins over
 * the file; an empty variable counts as unset. Every problem is collected (one line each, naming the
 * variable or the file key it came from); the caller throws them together as a SettingsError once it has
 * checked the rest, so an operator fixes a configuration in one round. Pure: no platform module; the caller reads the environment and the file.
 */
import { parse as parseYaml } from 'yaml';
import { OBJECT_MEMBER_TAGS } from '../json/index.js';

/** How a setting's text (a variable, or a file value) becomes its value, or the problem with it. */
export interface SettingType<T> {
  read(value: string | number | readonly string[]): T | { problem: string };
}

export interface Setting<T> {
  /** The environment variable. */
  variable: string;
  /** The config file key, dotted below a section (`limits.maxBodyBytes`); none: a variable only. */
  fileKey?: string;
  type: SettingType<T>;
  /** The value when neither the environment nor the file gives one. */
  default: T;
  /** A further check of a value read (not of the default); returns the problem. */
  check?: (value: T) => string | undefined;
}

// `any`: a table mixes settings of several types, and `check` takes its own setting's type.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type SettingsTable = Record<string, Setting<any>>;
export type SettingsOf<T extends SettingsTable> = { [K in keyof T]: T[K] extends Setting<infer V> ? V : never };

export class SettingsError extends Error {
  override name = 'SettingsError';
  readonly problems: string[];
  constructor(problems: readonly string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
    this.problems = [...problems];
  }
}

/** Longest value a problem quotes whole: a configuration's values are short, and one that is not is surely a mistake. */
const QUOTED_LENGTH = 100;

/** A value as a problem quotes it: as JSON, a long one cut with its length told. */
export function quoted(value: string | number | readonly string[]): string {
  if (typeof value === 'string') return value.length <= QUOTED_LENGTH ? JSON.stringify(value) : `${JSON.stringify(value.slice(0, QUOTED_LENGTH))}… (${value.length} characters)`;
  const json = JSON.stringify(value);
  return json.length <= QUOTED_LENGTH ? json : `${json.slice(0, QUOTED_LENGTH)}… (${Array.isArray(value) ? `${value.length} items` : `${json.length} characters`})`;
}

function wholeNumber(value: string | number | readonly string[]): number {
  if (typeof value === 'number') return value;
  return typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
}

/** An integer from `min` (and at most `max` when given). */
export function integer(min: number, max?: number): SettingType<number> {
  const expected = max === undefined ? `an integer of at least ${min}` : `an integer from ${min} to ${max}`;
  return {
    read(value) {
      const n = wholeNumber(value);
      if (!Number.isSafeInteger(n) || n < min || (max !== undefined && n > max)) return { problem: `expected ${expected}, got ${quoted(value)}` };
      return n;
    },
  };
}

/**
 * Longest time a millisecond setting takes: a day. Node's timers take at most 2^31 - 1 ms (24.8 days) and
 * set a longer one to 1 ms, with a TimeoutOverflowWarning on standard error each time: a deadline of
 * 3000000000 would fire at once, again and again. A day keeps every sum the server makes of them (a
 * deadline plus a grace period plus a margin) well inside, and a larger value is surely a unit mistake.
 */
export const MAX_MILLISECONDS = 86_400_000;

/** Whole milliseconds from `min` to MAX_MILLISECONDS (a day). */
export function milliseconds(min: number): SettingType<number> {
  return {
    read(value) {
      const n = wholeNumber(value);
      if (!Number.isSafeInteger(n) || n < min || n > MAX_MILLISECONDS) return { problem: `expected whole milliseconds from ${min} to ${MAX_MILLISECONDS} (a day), got ${quoted(value)}` };
      return n;
    },
  };
}

/** Whole seconds from 0 to `max`. */
export function seconds(max: number): SettingType<number> {
  return {
    read(value) {
      const n = wholeNumber(value);
      if (!Number.isSafeInteger(n) || n < 0 || n > max) return { problem: `expected whole seconds from 0 to ${max}, got ${quoted(value)}` };
      return n;
    },
  };
}

export const text: SettingType<string> = {
  read: (value) => (typeof value === 'string' && value !== '' ? value : { problem: `expected a non-empty string, got ${quoted(value)}` }),
};

/** Comma-separated in a variable, a list (or the same text) in the file; empty items dropped. */
export const list: SettingType<string[]> = {
  read: (value) =>
    typeof value === 'number'
      ? { problem: `expected a list of strings, got ${value}` }
      : (Array.isArray(value) ? value : String(value).split(',')).map((s: string) => s.trim()).filter((s: string) => s !== ''),
};

/** One of `choices`. */
export function oneOf<T extends string>(choices: readonly T[]): SettingType<T> {
  const names = choices.length > 1 ? `${choices.slice(0, -1).join(', ')} or ${choices[choices.length - 1]}` : choices.join('');
  return {
    read: (value) => (typeof value === 'string' && (choices as readonly string[]).includes(value) ? (value as T) : { problem: `expected ${names}, got ${quoted(value)}` }),
  };
}

/** An http: or https: URL, as written. */
export const httpUrl: SettingType<string> = {
  read(value) {
    let url: URL;
    try {
      url = new URL(String(value));
    } catch {
      return { problem: `not a URL: ${quoted(value)}` };
    }
    // The whole value quoted: `minio:9000` parses as scheme `minio:`, which alone says nothing of the mistake.
    return url.protocol === 'https:' || url.protocol === 'http:' ? String(value) : { problem: `expected an http(s) URL, got ${quoted(value)}` };
  },
};

/** A path segment's characters (RFC 3986 pchar, without percent-escapes: a prefix is matched as written). */
const PATH_PREFIX = /^(\/[A-Za-z0-9._~!$&'()*+,;=:@-]+)+$/;

/**
 * A URL path prefix such as `/amender` or `/teams/platform`: a `/` and segments, no trailing `/`, no
 * query, fragment, percent-escape, `.` or `..` segment.
 */
export const pathPrefix: SettingType<string> = {
  read(value) {
    if (typeof value === 'string' && PATH_PREFIX.test(value) && !value.split('/').some((s) => s === '.' || s === '..')) return value;
    return { problem: `expected a path prefix such as /amender (a / and segments of letters, digits and -._~!$&'()*+,;=:@, no trailing /), got ${quoted(value)}` };
  },
};

/** `true` or `false`. */
export const boolean: SettingType<boolean> = {
  read(value) {
    const read = oneOf(['true', 'false']).read(value);
    return typeof read === 'string' ? read === 'true' : read;
  },
};

/** An optional setting: its value, or undefined when not given. */
export function optional<T>(type: SettingType<T>): SettingType<T | undefined> {
  return type;
}

/**
 * Reads every setting of `table` from `env` and the parsed config `file`; each problem is appended to
 * `problems` (the caller throws SettingsError once it has checked the rest) and the setting keeps its default.
 */
export function readSettings<T extends SettingsTable>(
  table: T,
  env: Readonly<Record<string, string | undefined>>,
  problems: string[],
  file?: Readonly<Record<string, unknown>>,
): SettingsOf<T> {
  const out = {} as Record<string, unknown>;
  for (const [name, setting] of Object.entries(table)) {
    const fromEnv = env[setting.variable];
    let raw: string | number | readonly string[] | undefined;
    let where: string;
    if (fromEnv !== undefined && fromEnv !== '') {
      raw = fromEnv;
      where = setting.variable;
    } else {
      raw = setting.fileKey === undefined ? undefined : fileValue(file, setting.fileKey, problems);
      where = `config file key ${setting.fileKey}`;
    }
    if (raw === undefined) {
      out[name] = setting.default;
      continue;
    }
    const value = setting.type.read(raw);
    const problem = isProblem(value) ? value.problem : setting.check?.(value);
    if (problem !== undefined) problems.push(`${where}: ${problem}`);
    out[name] = problem === undefined ? value : setting.default;
  }
  return out as SettingsOf<T>;
}

/** Throws SettingsError when there is any problem. */
export function assertNoProblems(problems: readonly string[]): void {
  if (problems.length > 0) throw new SettingsError(problems);
}

function isProblem(value: unknown): value is { problem: string } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'problem' in value;
}

function fileValue(file: Readonly<Record<string, unknown>> | undefined, key: string, problems: string[]): string | number | readonly string[] | undefined {
  let at: unknown = file;
  for (const part of key.split('.')) {
    if (at === null || typeof at !== 'object' || Array.isArray(at) || !Object.prototype.hasOwnProperty.call(at, part)) return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  if (at === undefined || at === null) return undefined;
  if (typeof at === 'string' || typeof at === 'number' || (Array.isArray(at) && at.every((s) => typeof s === 'string'))) return at as string | number | string[];
  problems.push(`config file key ${key}: expected a string, number or list of strings`);
  return undefined;
}

/**
 * Parses a config file (YAML or JSON) and checks its keys against `table` (plus `sections`, mappings
 * read elsewhere, e.g. `clusters`). Returns the mapping (empty for an empty file); problems are appended.
 */
export function readSettingsFile(textOfFile: string, table: SettingsTable, sections: readonly string[], problems: string[]): Record<string, unknown> {
  let doc: unknown;
  try {
    // logLevel error: a YAML warning (an unresolved tag) is no Node process warning on standard error.
    doc = parseYaml(textOfFile, { customTags: [...OBJECT_MEMBER_TAGS], logLevel: 'error' });
  } catch (err) {
    // The yaml package's own text for a stream ('use YAML.parseAllDocuments()') speaks to its callers, not ours.
    const several = err instanceof Error && /multiple documents/i.test(err.message);
    problems.push(several ? 'config file: holds several YAML documents (--- between them); it must be one mapping of settings' : `config file: ${(err as Error).message.split('\n')[0]}`);
    return {};
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) {
    problems.push('config file: expected a mapping of settings');
    return {};
  }
  const keys = Object.values(table).flatMap((s) => (s.fileKey === undefined ? [] : [s.fileKey]));
  const known = [...keys, ...sections];
  const groups = new Set(keys.filter((k) => k.includes('.')).map((k) => k.slice(0, k.indexOf('.'))));
  const walk = (obj: Record<string, unknown>, prefix: string) => {
    for (const [k, v] of Object.entries(obj)) {
      const path = prefix + k;
      if (prefix === '' && groups.has(k) && v !== null && typeof v === 'object' && !Array.isArray(v)) walk(v as Record<string, unknown>, `${k}.`);
      else if (!known.includes(path)) problems.push(`config file: unknown key ${path.length > QUOTED_LENGTH ? quoted(path) : path} (known: ${known.join(', ')})`);
    }
  };
  walk(doc as Record<string, unknown>, '');
  return doc as Record<string, unknown>;
}

/** The file keys of a table and its sections, for documentation checks. */
export function fileKeysOf(table: SettingsTable, sections: readonly string[] = []): string[] {
  return [...Object.values(table).flatMap((s) => (s.fileKey === undefined ? [] : [s.fileKey])), ...sections];
}

/** The variables of a table, for documentation checks. */
export function variablesOf(table: SettingsTable): string[] {
  return Object.values(table).map((s) => s.variable);
}
