/**
 * `$(path)` references (substituteReferences in pkg/engine/variables/vars.go): replaced by the value
 * found at `path` in the document being substituted, relative to the referencing string's own place
 * (`../` goes up one level; a leading `/` is absolute). Anchors such as `(spec)` in the document are
 * ignored when locating the target. An optional comparison operator (`>=`, `!`, …) before the path is
 * kept in front of the value. `\$(…)` is an escape and becomes a literal `$(…)`.
 */
import type { ReviewGuard } from '../../guard/index.js';
import { getOwn, isJsonObject, type JsonValue } from '../../json/index.js';
import { stripAnchor } from '../patchers/anchors.js';
import { KyvernoRuleError } from '../errors.js';
import { operatorOf } from '../match/pattern.js';
import { rewriteStrings } from './walk.js';

const hasReference = (s: string) => s.includes('$(');

/**
 * The text references insert is counted over the whole document and checked against `guard`'s size
 * bound as it grows: each reference inserts a string of the policy's own, so a few hundred references
 * to one long string would build hundreds of megabytes (and the variable scan after it would flatten
 * them), at admission and in the load-time check alike.
 */
export function substituteReferences(document: JsonValue, guard: Pick<ReviewGuard, 'checkSize'>): JsonValue {
  const inserted = { bytes: 0 };
  return rewriteStrings(document, hasReference, (text, path) => resolveAll(document, text, path, guard, inserted));
}

function resolveAll(document: JsonValue, text: string, path: readonly string[], guard: Pick<ReviewGuard, 'checkSize'>, inserted: { bytes: number }): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const start = text.indexOf('$(', i);
    if (start < 0) break;
    if (start > 0 && text[start - 1] === '\\') {
      // an escape: drop the backslash, keep `$(` literally
      out += text.slice(i, start - 1) + '$(';
      i = start + 2;
      continue;
    }
    const end = text.indexOf(')', start + 2);
    const body = end < 0 ? '' : text.slice(start + 2, end);
    if (end < 0 || body === '' || /\s/.test(body)) {
      out += text.slice(i, start + 2);
      i = start + 2;
      continue;
    }
    const value = resolveOne(document, body, path);
    inserted.bytes += value.length;
    guard.checkSize(inserted.bytes, 'the text inserted by $() references');
    out += text.slice(i, start) + value;
    i = end + 1;
  }
  return out + text.slice(i);
}

function resolveOne(document: JsonValue, body: string, path: readonly string[]): string {
  const op = operatorOf(body);
  const prefix = op === 'range' || op === 'notRange' ? '' : op;
  const target = body.slice(prefix.length);
  if (target === '') throw new KyvernoRuleError(`reference $(${body}) at /${path.join('/')}: expected a path`);
  const segments = absolute(target, path);
  const value = lookup(document, segments);
  if (typeof value === 'string') return prefix + value;
  if (typeof value === 'number') return prefix + String(value);
  if (value === undefined || value === null) {
    throw new KyvernoRuleError(`reference $(${body}) at /${path.join('/')} does not resolve`);
  }
  throw new KyvernoRuleError(`reference $(${body}) at /${path.join('/')} must point to a string or a number`);
}

/** `path.Join(stringPath, reference)` for relative references, then split into segments. */
function absolute(reference: string, stringPath: readonly string[]): string[] {
  const parts = reference.startsWith('/') ? [] : [...stringPath];
  for (const part of reference.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return parts;
}

/** Walks the document; map keys are compared without their anchors. */
function lookup(document: JsonValue, segments: string[]): JsonValue | undefined {
  let current: JsonValue | undefined = document;
  for (const segment of segments) {
    if (Array.isArray(current)) {
      current = /^\d+$/.test(segment) ? current[Number(segment)] : undefined;
    } else if (isJsonObject(current)) {
      const direct = getOwn(current, segment);
      if (direct !== undefined) current = direct;
      else {
        const key = Object.keys(current).find((k) => stripAnchor(k) === segment);
        current = key === undefined ? undefined : current[key];
      }
    } else {
      return undefined;
    }
  }
  return current;
}
