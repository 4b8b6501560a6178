/**
 * `--test-case-selector "policy=…,rule=…,resource=…"` (test/filter/filter.go): each key's value is a
 * wildcard (`*`, `?`) a result's policy, rule or one of its resources must match; a result without that
 * field passes the filter. A resource value other than `*` also narrows the checked resources to it.
 */
import { wildcardMatch } from '../../go/index.js';
import { UsageError } from '../args.js';
import type { TestResult } from './format.js';

export interface Selector {
  policy?: string;
  rule?: string;
  resource?: string;
}

export function parseSelector(text: string): Selector {
  const out: Selector = {};
  if (text === '') return out;
  for (const part of text.split(',')) {
    const kv = part.split('=');
    if (kv.length !== 2) throw new UsageError(`--test-case-selector: ${JSON.stringify(part)} is not key=value`);
    const key = kv[0].trim();
    const value = kv[1].trim();
    if (key !== 'policy' && key !== 'rule' && key !== 'resource') {
      throw new UsageError(`--test-case-selector: unknown key ${JSON.stringify(key)} (policy, rule or resource)`);
    }
    out[key] = value;
  }
  return out;
}

export function selects(selector: Selector, result: TestResult): boolean {
  if (selector.policy !== undefined && result.policy !== '' && !wildcardMatch(selector.policy, result.policy)) return false;
  if (selector.rule !== undefined && result.rule !== '' && !wildcardMatch(selector.rule, result.rule)) return false;
  if (selector.resource !== undefined && result.resources.length > 0 && !result.resources.some((r) => wildcardMatch(selector.resource!, r))) return false;
  return true;
}

/** The results a selector keeps, with the resource filter applied as the Kyverno CLI applies it. */
export function selectResults(selector: Selector, results: readonly TestResult[]): TestResult[] {
  const narrow = selector.resource !== undefined && selector.resource !== '*' ? [selector.resource] : undefined;
  return results.filter((r) => selects(selector, r)).map((r) => (narrow ? { ...r, resources: narrow } : r));
}
