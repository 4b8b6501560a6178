/**
 * The 4 KB Pod review (suite 35's) against every Kyverno policy of the kyverno/policies library kept in
 * test/kyverno-library, as a platform team installs the library: not a goal, a figure of how the engine
 * scales with real policies. Reported with its ratio to `JSON.parse` + `JSON.stringify` of the same review.
 *
 * A suite of its own, late in the order: run in a process before other engine suites, 44 policies of every
 * shape leave the engine's code with inline caches that have seen them all (suite 35's goal row read 3.36×
 * after them against 3.20× before, the same code), and its garbage lands on whatever is timed next. So the
 * baseline is timed before the first library review, and no in-process suite runs after this one.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { pod4k } from '../fixtures.js';
import { runningNode } from '../nodes.js';
import { formatNs, measureAsync, table } from '../lib.js';
import type { JsonObject, JsonValue } from '../../src/json/index.js';
import { createPatch } from '../../src/jsonpatch/index.js';
import { compileKyvernoPolicy, runKyvernoPolicies, type CompiledKyvernoPolicy } from '../../src/kyverno/index.js';

const LIBRARY = new URL('../../test/kyverno-library/', import.meta.url).pathname;

/** The policy files under `dir`, not the test resources beside them (`.kyverno-test`). */
function policyFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name.startsWith('.') ? [] : policyFiles(path);
    return entry.name.endsWith('.yaml') ? [path] : [];
  });
}

/** Every Kyverno policy of the library copy in test/kyverno-library, compiled; in file order. */
export function libraryPolicies(): readonly CompiledKyvernoPolicy[] {
  const out: CompiledKyvernoPolicy[] = [];
  for (const file of policyFiles(LIBRARY).sort()) {
    for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
      const value = doc.toJS() as JsonObject | null;
      if (value?.kind !== 'ClusterPolicy' && value?.kind !== 'Policy') continue;
      const r = compileKyvernoPolicy(value);
      if (!r.ok) throw new Error(`${file}: ${JSON.stringify(r.problems)}`);
      out.push(r.policy);
    }
  }
  return Object.freeze(out);
}

const SAMPLING = { minMillis: 2000, warmup: 100, minSamples: 200 };

export async function run(): Promise<void> {
  const text = JSON.stringify(pod4k());
  const baseline = await measureAsync(async () => JSON.stringify(JSON.parse(text)), { ...SAMPLING, warmup: 300 });
  const library = libraryPolicies();
  const review = async () => {
    const parsed = JSON.parse(text) as { request: { object: JsonValue } & JsonObject };
    const result = await runKyvernoPolicies(library, { request: parsed.request as never, namespaceLabels: {} });
    return { result, patch: JSON.stringify(createPatch(parsed.request.object, result.object)) };
  };
  const rules = (await review()).result.policies.flatMap((p) => p.rules);
  const stats = await measureAsync(review, SAMPLING);
  table(`kyverno/policies library: 4 KB Pod review against ${library.length} policies (not a goal), ${runningNode()}`, [
    {
      policies: library.length,
      rules: `${rules.length} matched (${rules.filter((r) => r.status === 'applied').length} applied)`,
      bytes: text.length,
      median: formatNs(stats.median),
      p99: formatNs(stats.p99),
      'parse+stringify': formatNs(baseline.median),
      ratio: (stats.median / baseline.median).toFixed(2),
    },
  ]);
}
