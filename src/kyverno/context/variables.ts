/**
 * `{{ … }}` variable substitution (pkg/engine/variables/vars.go), applied after `$(…)` references:
 *
 * - a variable is `{{ expr }}` not preceded by a backslash; `expr` is JMESPath and may hold one level
 *   of `{…}`; innermost variables resolve first and the string is re-scanned until none is left, so
 *   `{{ images.containers."{{element.name}}".tag }}` works;
 * - text that came out of a resolved variable is never scanned again (Kyverno does re-scan it: a value
 *   holding `{{…}}` is substituted again, which lets an object's own text run queries and grow
 *   exponentially; see the Kyverno notes in README.md). Resolved text is kept aside behind a private
 *   marker while the string is re-scanned, and spliced in at the end — into the expression of an
 *   enclosing variable too, where the nested form needs it;
 * - a string that is exactly one variable takes the value's JSON type; inside a longer string a string
 *   value is inserted as is and anything else as compact Go-style JSON;
 * - `{{- expr }}` (shallow) is the same insertion (Kyverno escapes its `{{`, which amounts to ours);
 *   a pass whose last variable is shallow ends the scanning, as in Kyverno;
 * - `\{{ … }}` is an escape: left alone, and `\{{` becomes `{{` at the end (in the policy's own text);
 * - `{{@}}` is the value at "the same place" in `request.object` (or `target` when the context has one),
 *   as ./self-path.ts writes it from the string's path;
 * - for DELETE requests `request.object` in an expression reads `request.oldObject`;
 * - an expression that fails (unknown key in a bare field access, unknown function, syntax…) is an error.
 *
 * Every variable ticks the review's guard, and the text and values a document's substitution inserts
 * are counted against its size bound.
 */
import { isReviewAborted } from '../../guard/index.js';
import { internalized, isJsonObject, ownMember, type JsonObject, type JsonValue } from '../../json/index.js';
import type { JsonContext } from './context.js';
import { KyvernoRuleError, messageOf } from '../errors.js';
import { goJsonStringify } from '../../go/index.js';
import { substituteReferences } from './references.js';
import { selfPathExpression, selfPathPrefix, traversalPath } from './self-path.js';
import { applyPlan, applyPlanMember, GENERAL, NOTHING, planOf } from './substitution-plan.js';
import { findVariables, isShallow, variableExpression } from './variable-syntax.js';
import { TextMemo } from './text-memo.js';
import { mayHaveVariables, rewriteStrings } from './walk.js';

export interface SubstitutionScope {
  readonly ctx: JsonContext;
  /** The request is a DELETE: `request.object` reads `request.oldObject`. */
  readonly isDelete: boolean;
}

/**
 * Resolved text waits behind `MARK index END` while the string is re-scanned: neither character is a
 * brace or a backslash, so it can never form or escape a variable. A MARK already in the policy's text
 * is itself set aside the same way, so every MARK in the working string is one of ours.
 */
const MARK = '\uE000';
const END = '\uE001';
const MARKED = /\uE000(\d+)\uE001/g;

const hasVariable = (s: string) => s.includes('{{');

/** What one document's substitution has inserted so far (text and values), against the size bound. */
interface Inserted {
  bytes: number;
}

/** References, then variables, over a whole document. Throws KyvernoRuleError (or the guard's ReviewAborted). */
export function substituteAll(document: JsonValue, scope: SubstitutionScope): JsonValue {
  if (typeof document === 'string') {
    // A condition's key or value: one string, no walk (a reference in it takes the general one).
    if (document.includes('$(')) return substituteGeneral(document, scope);
    return document.includes('{{') ? substituteString(document, NO_PATH, scope) : document;
  }
  if (typeof document !== 'object' || document === null) return document;
  // A policy's own (frozen) document: its variables were located once.
  const plan = planOf(document);
  if (plan === NOTHING) return document;
  if (plan === GENERAL) return substituteGeneral(document, scope);
  const inserted: Inserted = { bytes: 0 };
  return applyPlan(document, plan, (text, path) => substituteIn(text, path, scope, inserted));
}

/**
 * `ownMember(substituteAll(document), key)` (`key` undefined: nothing, for a document substituted only for
 * its errors): the same substitutions in the same order, with one size count for the whole document, but a
 * policy's own document is copied only within the member read (./substitution-plan.ts applyPlanMember).
 */
export function substituteMember(document: JsonObject, key: string | undefined, scope: SubstitutionScope): JsonValue | undefined {
  const plan = planOf(document);
  if (plan === NOTHING || plan === GENERAL || Array.isArray(document)) {
    const substituted = substituteAll(document, scope);
    return key !== undefined && isJsonObject(substituted) ? ownMember(substituted, key) : undefined;
  }
  const inserted: Inserted = { bytes: 0 };
  return applyPlanMember(document, plan, key, (text, path) => substituteIn(text, path, scope, inserted));
}

function substituteGeneral(document: JsonValue, scope: SubstitutionScope): JsonValue {
  if (!mayHaveVariables(document)) return document;
  const withReferences = substituteReferences(document, scope.ctx.guard);
  const inserted: Inserted = { bytes: 0 };
  return rewriteStrings(withReferences, hasVariable, (text, path) => substituteIn(text, path, scope, inserted));
}

const NO_PATH: readonly string[] = Object.freeze([]);

/** Variables only, in one string whose place in its document is `path` (for `{{@}}`). */
export function substituteString(text: string, path: readonly string[], scope: SubstitutionScope): JsonValue {
  return substituteIn(text, path, scope, { bytes: 0 });
}

function substituteIn(text: string, path: readonly string[], scope: SubstitutionScope, inserted: Inserted): JsonValue {
  const single = singleVariableOf(text);
  if (single !== undefined) return substituteSingle(text, single, path, scope, inserted);
  const { guard } = scope.ctx;
  const kept: string[] = [];
  const keep = (piece: string): string => `${MARK}${kept.push(piece) - 1}${END}`;
  let value = text.includes(MARK) ? text.replaceAll(MARK, () => keep(MARK)) : text;
  // The first scan is of the policy's own text (unless it held a marker), the same at every review and
  // every foreach element: remembered with its expressions, which then find their compiled JMESPath by
  // pointer (a fresh slice of a long expression is hashed and compared character by character).
  let first: readonly FoundVariable[] | undefined = value === text ? firstScanOf(text) : undefined;
  for (;;) {
    const matches = first ?? scanVariables(value);
    first = undefined;
    if (matches.length === 0) break;
    const original = value;
    // Each variable is replaced where the scan found it, in one pass: Kyverno replaces the first
    // occurrence of `prefix + variable` one variable at a time, which is that same place (the earlier
    // occurrences were replaced already, and a replacement holds no `{{`), but costs the whole text per
    // variable — quadratic in a text of many variables.
    let replaced = '';
    let last = 0;
    for (let i = 0; i < matches.length; i++) {
      const m = matches[i];
      guard.tick();
      const { prefix, variable, expression } = m;
      // A nested variable's resolved text is part of this expression (`"{{element.name}}"` inside).
      const resolved = resolve(kept.length > 0 ? unmark(expression, kept) : expression, path, scope);
      if (original === variable) {
        countInserted(inserted, scope.ctx.lastResultSize, scope);
        return resolved;
      }
      const replacement = typeof resolved === 'string' ? resolved : goJsonStringify(resolved, guard);
      countInserted(inserted, replacement.length, scope);
      replaced += value.slice(last, m.index) + prefix + keep(replacement);
      last = m.index + m.length;
    }
    value = replaced + value.slice(last);
    // Kyverno scans again only when the pass's last variable was not shallow: after `{{- a }}{{ b }}`
    // (whose second variable the first scan cannot see, its first character being taken) or
    // `{{ x.{{- a }} }}`, the rest stays text.
    if (matches[matches.length - 1].shallow) break;
  }
  if (value.includes('\\{{')) value = value.replaceAll('\\{{', '{{');
  return kept.length > 0 ? unmark(value, kept) : value;
}

/** A variable findVariables found: the match's place and length, the character before, the variable with its braces, its expression. */
interface FoundVariable {
  readonly index: number;
  readonly length: number;
  readonly prefix: string;
  readonly variable: string;
  readonly expression: string;
  /** `{{- … }}`: Kyverno does not scan the string again after a pass that ends with one. */
  readonly shallow: boolean;
}

function scanVariables(text: string, intern = false): FoundVariable[] {
  const matches = findVariables(text);
  const found: FoundVariable[] = new Array(matches.length);
  for (let i = 0; i < matches.length; i++) {
    const m = matches[i];
    const expression = variableExpression(m[2].slice(2, -2));
    const shallow = isShallow(m[2].slice(2, -2));
    found[i] = { index: m.index, length: m[0].length, prefix: m[1], variable: m[2], expression: intern ? internalized(expression) : expression, shallow };
  }
  return found;
}

const firstScans = new TextMemo<readonly FoundVariable[]>(1 << 16);

function firstScanOf(text: string): readonly FoundVariable[] {
  let found = firstScans.get(text);
  if (found === undefined) firstScans.set(text, (found = Object.freeze(scanVariables(text, true))));
  return found;
}

/**
 * Where the one variable of `text` ends (the index after its `}}`), when the text is of the common shape
 * the general loop would resolve in a single pass without setting anything aside: one `{{` in the whole
 * text, no `{` or `}` inside the variable (nothing nested), no backslash (no escape) and no marker
 * character. The text left around the resolved value then holds no `{{` to re-scan. Undefined otherwise.
 */
function singleVariable(text: string): { open: number; close: number } | undefined {
  const open = text.indexOf('{{');
  if (open < 0 || text.indexOf('{{', open + 1) >= 0 || text.includes('\\') || text.includes(MARK)) return undefined;
  const close = text.indexOf('}}', open + 2);
  if (close < 0) return undefined;
  for (let i = open + 2; i < close; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x7d) return undefined;
  }
  return { open, close: close + 2 };
}

/** A text of singleVariable's shape: where its variable is, and the variable's expression. */
interface SingleVariable {
  readonly open: number;
  readonly close: number;
  readonly expression: string;
}

/**
 * singleVariable's answers by text, with the expression cut out: the policies' texts come back with
 * every review (and the same expression string then finds its compiled JMESPath at once).
 */
const singles = new TextMemo<SingleVariable | null>(1 << 16);

function singleVariableOf(text: string): SingleVariable | undefined {
  let single = singles.get(text);
  if (single === undefined) {
    const at = singleVariable(text);
    // The expression internalized, as the JMESPath cache keeps it: found there by pointer.
    single = at ? { open: at.open, close: at.close, expression: internalized(variableExpression(text.slice(at.open + 2, at.close - 2))) } : null;
    singles.set(text, single);
  }
  return single ?? undefined;
}

/** The general loop's single pass over such a text (see singleVariable), without its bookkeeping. */
function substituteSingle(text: string, at: SingleVariable, path: readonly string[], scope: SubstitutionScope, inserted: Inserted): JsonValue {
  scope.ctx.guard.tick();
  const resolved = resolve(at.expression, path, scope);
  if (at.open === 0 && at.close === text.length) {
    countInserted(inserted, scope.ctx.lastResultSize, scope);
    return resolved;
  }
  const replacement = typeof resolved === 'string' ? resolved : goJsonStringify(resolved, scope.ctx.guard);
  countInserted(inserted, replacement.length, scope);
  return text.slice(0, at.open) + replacement + text.slice(at.close);
}

function countInserted(inserted: Inserted, bytes: number, scope: SubstitutionScope): void {
  inserted.bytes += bytes;
  scope.ctx.guard.checkSize(inserted.bytes, 'substituted text');
}

function unmark(text: string, kept: readonly string[]): string {
  return text.replace(MARKED, (_, i: string) => kept[Number(i)]);
}

/**
 * Kyverno's test for `{{@}}`'s prefix is `ctx.Query("target")` succeeding: a query, so a context entry
 * named `target` that has not loaded yet is loaded by it (deferred.go LoadMatching), and a failed load
 * means no target. Looking for the key in the context as it stands missed such an entry.
 */
function targetResolves(scope: SubstitutionScope): boolean {
  try {
    scope.ctx.query('target');
    return true;
  } catch (error) {
    if (isReviewAborted(error)) throw error;
    return false;
  }
}

function resolve(expression: string, path: readonly string[], scope: SubstitutionScope): JsonValue {
  let query = expression;
  if (query === '@') query = selfPathExpression(traversalPath(path), selfPathPrefix(targetResolves(scope)));
  if (scope.isDelete) query = query.replaceAll('request.object', 'request.oldObject');
  try {
    return scope.ctx.query(query);
  } catch (error) {
    if (isReviewAborted(error)) throw error;
    // `{{@}}` is reported by the expression it stood for, as Kyverno does.
    // Kyverno's text (vars.go substituteVariablesIfAny): the JSON pointer of the string, '' for the root.
    throw new KyvernoRuleError(`failed to resolve ${expression === '@' ? query : expression} at path ${path.length === 0 ? '' : `/${path.join('/')}`}: ${messageOf(error)}`);
  }
}
