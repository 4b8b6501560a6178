/**
 * `--test-case-selector "policy=…,rule=…,resource=…"` (test/filter/filter.go): each key's value is a
 * wildcard (`*`, `?`) a result's policy, rule or one of its resources must match; a result without that
 * field passes the filter. A key may be given more than once: every filter must pass. The resource values
 * before a `*` also narrow the checked resources to them.
 */
import { wildcardMatch } from '../../go/index.js';
import { UsageError } from '../args.js';
import type { TestResult } from './format.js';

export interface SelectorFilter {
  key: 'policy' | 'rule' | 'resource';
  value: string;
}

/** Every `key=value` of the selector, in order: a result must pass them all, as Kyverno's composite filter. */
export interface Selector {
  filters: SelectorFilter[];
}

export function parseSelector(text: string): Selector {
  const filters: SelectorFilter[] = [];
  if (text === '') return { filters };
  for (const part of text.split(',')) {
    const kv = part.split('=');
    if (kv.length !== 2) throw new UsageError(`--test-case-selector: ${JSON.stringify(part)} is not key=value`);
    const key = kv[0].trim();
    const value = kv[1].trim();
    if (key !== 'policy' && key !== 'rule' && key !== 'resource') {
      throw new UsageError(`--test-case-selector: unknown key ${JSON.stringify(key)} (policy, rule or resource)`);
    }
    filters.push({ key, value });
  }
  return { filters };
}

function passes(f: SelectorFilter, result: TestResult): boolean {
  if (f.key === 'policy') return result.policy === '' || wildcardMatch(f.value, result.policy);
  if (f.key === 'rule') return result.rule === '' || wildcardMatch(f.value, result.rule);
  return result.resources.length === 0 || result.resources.some((r) => wildcardMatch(f.value, r));
}

export function selects(selector: Selector, result: TestResult): boolean {
  return selector.filters.every((f) => passes(f, result));
}

/**
 * The resource values that narrow the checked resources (ExtractResourceFilters): those of the resource
 * filters in order, up to the first `*`, which ends the list.
 */
function resourceNarrowing(selector: Selector): string[] {
  const out: string[] = [];
  for (const f of selector.filters) {
    if (f.key !== 'resource') continue;
    if (f.value === '*') break;
    out.push(f.value);
  }
  return out;
}

/** The results a selector keeps, with the resource filter applied as the Kyverno CLI applies it. */
export function selectResults(selector: Selector, results: readonly TestResult[]): TestResult[] {
  const narrow = resourceNarrowing(selector);
  return results.filter((r) => selects(selector, r)).map((r) => (narrow.length > 0 ? { ...r, resources: narrow, resourcesGiven: true } : r));
}
