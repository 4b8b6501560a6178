/** Structured logs: one JSON object per line, so any log pipeline can index the fields. */
import { needsJsonEscape } from '../json/index.js';
import { isoTime } from './iso-time.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface LogRecord {
  level: LogLevel;
  msg: string;
  [field: string]: unknown;
}

export type Logger = (record: LogRecord) => void;

const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export function isLogLevel(value: string): value is LogLevel {
  return Object.prototype.hasOwnProperty.call(LEVELS, value);
}

/**
 * A logger that writes each record at or above `minLevel` as one JSON line through `write` (stdout on
 * Node, console.log on Workers/Lambda). `now` is injected so tests get stable times.
 */
export function jsonLineLogger(
  write: (line: string) => void,
  { minLevel = 'info', now }: { minLevel?: LogLevel; now?: () => Date } = {},
): Logger {
  const threshold = LEVELS[minLevel];
  const time = now ? () => now().toISOString() : () => isoTime();
  return (record) => {
    if (LEVELS[record.level] < threshold) return;
    write(jsonLine(time(), record));
  };
}

/** One record as the line jsonLineLogger writes, stamped now (a line written outside a logger's stream). */
export function formatLogLine(record: LogRecord): string {
  return jsonLine(isoTime(), record);
}

/**
 * `{"time":…,"level":…,"msg":…,<the other fields in their order>}` and a newline, exactly as
 * JSON.stringify of that object writes it (a record's own `time` takes the first place; a field whose
 * value JSON leaves out, such as undefined, is left out), without building the object: one per request.
 */
function jsonLine(time: string, record: LogRecord): string {
  let line = '';
  line = field(line, 'time', 'time' in record ? record.time : time);
  line = field(line, 'level', record.level);
  line = field(line, 'msg', record.msg);
  for (const key in record) if (key !== 'time' && key !== 'level' && key !== 'msg') line = field(line, key, record[key]);
  return (line === '' ? '{' : line) + '}\n';
}

/** `"key":` of the field names met so far: a log has few distinct ones, so each is quoted once. */
const quotedKeys = new Map<string, string>();
const MAX_QUOTED_KEYS = 1024;

/** `line` with `key: value` appended (a value JSON leaves out, such as undefined, is left out). */
function field(line: string, key: string, value: unknown): string {
  // Strings and numbers written directly (JSON.stringify of a short string costs ~3× the test).
  const text =
    typeof value === 'string' && !needsJsonEscape(value)
      ? '"' + value + '"'
      : typeof value === 'number' && Number.isFinite(value)
        ? String(value)
        : JSON.stringify(value);
  if (text === undefined) return line;
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = JSON.stringify(key) + ':';
    if (quotedKeys.size < MAX_QUOTED_KEYS) quotedKeys.set(key, quoted);
  }
  return line + (line === '' ? '{' : ',') + quoted + text;
}

/**
 * `text` as a log field may carry it: whole up to `max` characters, else its first `max` and a marker
 * with its full length. For strings a client controls with no bound of its own (a review's uid), which
 * would otherwise be copied whole into every line of a request.
 */
export function truncatedForLog(text: string, max: number): string {
  if (text.length <= max) return text;
  // Not between the two halves of a surrogate pair (a lone one would be written as an escape).
  const end = max > 0 && isHighSurrogate(text.charCodeAt(max - 1)) ? max - 1 : max;
  return `${text.slice(0, end)}…[truncated: ${text.length} characters]`;
}

/**
 * `text` whole up to `max` characters, else its first and last halves of `max` around a marker with its
 * full length: for a message that quotes a long value in its middle (a field error quoting a whole CEL
 * expression) and says at its end what is wrong.
 */
export function middleTruncatedForLog(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  // Neither cut between the two halves of a surrogate pair.
  const headEnd = half > 0 && isHighSurrogate(text.charCodeAt(half - 1)) ? half - 1 : half;
  let tailStart = text.length - half;
  if (isHighSurrogate(text.charCodeAt(tailStart - 1))) tailStart++;
  return `${text.slice(0, headEnd)}…[truncated: ${text.length} characters]…${text.slice(tailStart)}`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** Drops every record (the CLI and benchmarks). */
export const silentLogger: Logger = () => {};
