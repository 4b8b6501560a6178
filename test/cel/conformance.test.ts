/**
 * cel-spec conformance (the files Kubernetes expressions rely on), run through the public
 * CelEnvironment. Prints a per-file table; fails if any file passes fewer tests than the checked-in
 * baseline (test/vectors/cel-spec/baseline.json), which a change may raise and never lower.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CelEnvironment, type CelValue } from '../../src/cel/index.js';
import {
  CONFORMANCE_FILES,
  conformanceCases,
  needsProtobuf,
  protoValue,
  sameValue,
  typeText,
  type ConformanceCase,
} from './conformance-data.js';

const baselinePath = fileURLToPath(new URL('../vectors/cel-spec/baseline.json', import.meta.url));
const baseline = JSON.parse(readFileSync(baselinePath, 'utf8')) as { files: Record<string, number> };

type Outcome = 'pass' | 'fail' | 'skip';

/** Environments by (container, declarations): building one per test would dominate the run. */
const envs = new Map<string, CelEnvironment>();

function run(c: ConformanceCase): { outcome: Outcome; detail?: string } {
  const t = c.test;
  if (needsProtobuf(t)) return { outcome: 'skip' };
  const variables: Record<string, string> = {};
  for (const d of t.typeEnv ?? []) {
    if (!d.ident) return { outcome: 'skip', detail: 'function declaration in typeEnv' };
    variables[d.name] = typeText(d.ident.type);
  }
  const key = JSON.stringify([t.container ?? '', variables]);
  let env = envs.get(key);
  if (!env) envs.set(key, (env = new CelEnvironment({ container: t.container, variables })));
  const compiled = env.compile(t.expr, { check: !t.disableCheck });
  const expectError = t.evalError !== undefined;
  if (!compiled.ok) return expectError ? { outcome: 'pass' } : { outcome: 'fail', detail: compiled.message };
  if (t.typedResult?.deducedType) {
    const want = typeText(t.typedResult.deducedType);
    if (compiled.typeName !== want) return { outcome: 'fail', detail: `type ${compiled.typeName}, want ${want}` };
  }
  if (t.checkOnly) return { outcome: 'pass' };
  const bindings: Record<string, CelValue> = {};
  for (const [name, b] of Object.entries(t.bindings ?? {})) if (b.value) bindings[name] = protoValue(b.value);
  const r = compiled.program.evaluate(bindings);
  if (expectError) return r.ok ? { outcome: 'fail', detail: 'expected an error' } : { outcome: 'pass' };
  if (!r.ok) return { outcome: 'fail', detail: r.message };
  const expectedProto = t.value ?? t.typedResult?.result;
  if (!expectedProto) return { outcome: 'pass' };
  const expected = protoValue(expectedProto);
  return sameValue(r.value, expected) ? { outcome: 'pass' } : { outcome: 'fail', detail: `got ${String(r.value)}` };
}

describe('cel-spec conformance', () => {
  const cases = conformanceCases();
  const table = new Map<string, { pass: number; fail: number; skip: number }>();
  const failures: string[] = [];
  for (const f of CONFORMANCE_FILES) table.set(f, { pass: 0, fail: 0, skip: 0 });
  for (const c of cases) {
    let r: { outcome: Outcome; detail?: string };
    try {
      r = run(c);
    } catch (e) {
      r = { outcome: 'fail', detail: `threw ${(e as Error).message}` };
    }
    table.get(c.file)![r.outcome]++;
    if (r.outcome === 'fail') failures.push(`${c.file}/${c.section}/${c.test.name}: ${c.test.expr} — ${r.detail}`);
  }

  it('prints the per-file table', () => {
    const rows = [...table].map(([file, r]) => {
      const run = r.pass + r.fail;
      return `${file.padEnd(16)} ${String(r.pass).padStart(4)} / ${String(run).padStart(4)}  (${((100 * r.pass) / Math.max(run, 1)).toFixed(1).padStart(5)}%)  skipped ${r.skip}`;
    });
    const pass = [...table.values()].reduce((a, r) => a + r.pass, 0);
    const total = [...table.values()].reduce((a, r) => a + r.pass + r.fail, 0);
    const skip = [...table.values()].reduce((a, r) => a + r.skip, 0);
    // Library errors would silently lower the figures; surface them.
    expect([...envs.values()].flatMap((e) => e.libraryErrors)).toEqual([]);
    console.log(
      `\ncel-spec conformance (tests needing protobuf messages skipped)\n${rows.join('\n')}\n` +
        `${'total'.padEnd(16)} ${String(pass).padStart(4)} / ${String(total).padStart(4)}  (${((100 * pass) / total).toFixed(1)}%)  skipped ${skip}\n`,
    );
    if (process.env.CEL_CONFORMANCE_FAILURES) console.log(failures.join('\n'));
    expect(total).toBeGreaterThan(1300);
  });

  for (const f of CONFORMANCE_FILES) {
    it(`${f}: no fewer passes than the baseline`, () => {
      expect(table.get(f)!.pass).toBeGreaterThanOrEqual(baseline.files[f] ?? 0);
    });
  }
});
