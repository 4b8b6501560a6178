/**
 * foreach entries checked at load, nesting included, into the form foreach.ts runs; and the check that
 * `element` variables stand only where a foreach gives them a value.
 */
import { getOwn, isJsonObject, type JsonObject, type JsonValue } from '../../json/index.js';
import { checkJmesPath } from '../check-expressions.js';
import { eachObject, type Report } from '../compile-report.js';
import { compileContext } from '../context/compile-context.js';
import { findVariables, variableExpression } from '../context/variable-syntax.js';
import { compileConditions } from '../match/compile-conditions.js';
import { checkOverlay, patchTemplateOf } from '../patchers/compile-patches.js';
import type { ForeachEntry } from '../types.js';

/**
 * `nested`: the entries of an entry's own `foreach` (schemaless in Kyverno's CRD). An empty list is
 * accepted as Kyverno accepts it: at the top level the rule still runs its (empty) foreach, skipping
 * ("0 elements processed", the handler tests `ForEachMutation != nil`); an entry's empty `foreach` is
 * no nested foreach (`len(GetForEachMutation()) > 0` decides), so the entry's own patch applies.
 */
export function compileForeach(raw: JsonValue, path: string, report: Report, nested = false): ForeachEntry[] {
  const entries: ForeachEntry[] = [];
  eachObject(raw, path, report, false, (entry, at) => {
    const list = getOwn(entry, 'list');
    if (typeof list !== 'string' || list.trim() === '') {
      report.error(`${at}.list`, 'must be a JMESPath expression (a string)');
    } else {
      checkJmesPath(list, `${at}.list`, report);
    }
    const order = getOwn(entry, 'order');
    if (order !== undefined && order !== 'Ascending' && order !== 'Descending') report.error(`${at}.order`, 'must be Ascending or Descending');
    const context = compileContext(getOwn(entry, 'context'), `${at}.context`, report);
    const preconditions = compileConditions(getOwn(entry, 'preconditions'), `${at}.preconditions`, report, nested ? 'nested-foreach' : 'foreach');
    const psm = getOwn(entry, 'patchStrategicMerge');
    const json = getOwn(entry, 'patchesJson6902');
    if (psm !== undefined && psm !== null) checkOverlay(psm, `${at}.patchStrategicMerge`, report);
    if (json !== undefined && json !== null && typeof json !== 'string') report.error(`${at}.patchesJson6902`, 'must be a string (YAML or JSON text)');
    const patches: JsonObject = {};
    if (psm !== undefined) patches.patchStrategicMerge = psm;
    if (json !== undefined) patches.patchesJson6902 = json;
    const nestedRaw = getOwn(entry, 'foreach');
    let inner: ForeachEntry[] | undefined;
    if (nestedRaw !== undefined && nestedRaw !== null && !(Array.isArray(nestedRaw) && nestedRaw.length === 0)) {
      if (context.length > 0 || preconditions || Object.keys(patches).length > 0) {
        report.error(at, 'an entry with a nested foreach may not have its own context, preconditions or patches');
      }
      inner = compileForeach(nestedRaw, `${at}.foreach`, report, true);
    }
    const patchTemplate = patchTemplateOf(psm, json);
    entries.push({
      list: typeof list === 'string' ? list : '',
      ...(order === 'Ascending' || order === 'Descending' ? { order } : {}),
      context,
      ...(preconditions ? { preconditions } : {}),
      patches,
      hasStrategicMerge: psm !== undefined && psm !== null,
      ...(patchTemplate ? { patchTemplate } : {}),
      ...(inner ? { foreach: inner } : {}),
    });
  });
  return entries;
}

/**
 * `element` / `elementIndex` variables outside foreach (Kyverno refuses such policies: pkg/engine/variables
 * ValidateElementInForEach, run on the rule by its policy validation). A variable is what Kyverno's
 * variable syntax finds, in strings and map keys: an escaped `\{{ element }}` is text, not a variable.
 */
export function checkElementVariables(rule: JsonObject, path: string, report: Report): void {
  const mutate = getOwn(rule, 'mutate');
  const outside: JsonObject = { ...rule };
  if (isJsonObject(mutate)) {
    const { foreach: _ignored, ...rest } = mutate;
    outside.mutate = rest;
  }
  if (holdsElementVariable(outside)) report.error(path, 'element / elementIndex variables may only be used inside foreach');
}

function holdsElementVariable(value: JsonValue): boolean {
  if (typeof value === 'string') return isElementText(value);
  if (Array.isArray(value)) return value.some(holdsElementVariable);
  if (isJsonObject(value)) return Object.keys(value).some((k) => isElementText(k) || holdsElementVariable(value[k]));
  return false;
}

/** Kyverno's test: a variable whose expression (braces, blanks and the shallow `-` taken off) starts with `element`. */
function isElementText(text: string): boolean {
  return findVariables(text).some((m) => variableExpression(m[2].slice(2, -2)).startsWith('element'));
}
