/**
 * Runs the library CEL vectors (test/vectors/map/library, format in shared/vectors/map/README.md)
 * through the package's general environment with every library of src/cel/lib registered and
 * Kubernetes' literal validation, the way the Kubernetes environment composes them.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { CelEnvironment, CelOptional, KUBERNETES_LIBRARIES, celEquals } from '../../../src/cel/index.js';
import { parseJson } from '../../../src/json/index.js';

export const VECTOR_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../vectors/map/library');

export interface Expect {
  value?: unknown;
  valueType?: string;
  valueExpr?: string;
  optionalOf?: string[];
  error?: string;
  errorMatch?: 'exact' | 'regex' | 'substring';
  compileError?: string[];
  compiles?: boolean;
}

export interface VectorCase {
  vector: string;
  file: string;
  expression: string;
  bindings: Record<string, unknown>;
  expect: Expect;
}

/** All cases of all vector files, one per expression. */
export function loadVectorCases(): VectorCase[] {
  const out: VectorCase[] = [];
  for (const file of readdirSync(VECTOR_DIR).filter((f) => f.endsWith('.yaml')).sort()) {
    const text = readFileSync(join(VECTOR_DIR, file), 'utf8');
    for (const doc of YAML.parseAllDocuments(text, { intAsBigInt: true })) {
      const v = doc.toJS() as {
        name: string;
        kind: string;
        expression?: string;
        expect?: Expect;
        bindings?: Record<string, unknown>;
        cases?: { expression: string; expect: Expect }[];
      };
      if (v.kind !== 'cel') continue;
      const cases = v.cases ?? [{ expression: v.expression!, expect: v.expect! }];
      for (const c of cases) {
        out.push({ vector: v.name, file, expression: c.expression, bindings: v.bindings ?? {}, expect: c.expect });
      }
    }
  }
  return out;
}

/** A vector's expected error text against the actual one: `exact`, `regex`, or (default) `substring`. */
export function matchesText(actual: string, expected: string, mode: Expect['errorMatch']): boolean {
  if (mode === 'exact') return actual === expected;
  if (mode === 'regex') return new RegExp(expected).test(actual);
  return actual.includes(expected);
}

export type Outcome = { ok: true } | { ok: false; detail: string };

export function show(v: unknown): string {
  if (v instanceof CelOptional) return v.hasValue() ? `optional.of(${show(v.value())})` : 'optional.none()';
  if (typeof v === 'bigint') return `${v}`;
  try {
    return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}` : x)) ?? String(v);
  } catch {
    return String(v);
  }
}

/**
 * YAML values (ints as bigint, floats as number) as the JSON documents the admission engine reads: written
 * as JSON text, ints with all their digits and integral floats as `1.0`, and read back by the engine's
 * own parser (src/json), which marks the one as a float literal and keeps the other exact past ±2^53.
 */
export function toJsonDocument(v: unknown): unknown {
  return parseJson(jsonText(v));
}

function jsonText(v: unknown): string {
  if (typeof v === 'bigint') return String(v);
  if (typeof v === 'number') {
    const text = String(v);
    return Number.isInteger(v) && !/[e.]/.test(text) ? `${text}.0` : text;
  }
  if (Array.isArray(v)) return `[${v.map(jsonText).join(',')}]`;
  if (typeof v === 'object' && v !== null) return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${jsonText(x)}`).join(',')}}`;
  return JSON.stringify(v);
}

/** Runs a case on the Kubernetes CEL engine (src/cel/index.ts) with every library of src/cel/lib. */
const envs = new Map<string, CelEnvironment>();

function environmentFor(names: string[]): CelEnvironment {
  const key = names.sort().join(',');
  let env = envs.get(key);
  if (!env) {
    const variables = Object.fromEntries(names.map((k) => [k, 'dyn']));
    envs.set(key, (env = new CelEnvironment({ variables, homogeneousAggregateLiterals: true, validateLiterals: true, libraries: KUBERNETES_LIBRARIES })));
  }
  return env;
}

export function runCaseOnEngine(c: VectorCase): Outcome {
  const env = environmentFor(Object.keys(c.bindings));
  if (env.libraryErrors.length) return { ok: false, detail: `library errors: ${env.libraryErrors.join('; ')}` };
  const expect = c.expect;
  const compiled = env.compile(c.expression, { check: true });
  const compileError = compiled.ok ? undefined : compiled.message;
  if (expect.compileError) {
    if (compileError === undefined) return { ok: false, detail: 'expected a compile error, it compiled' };
    const bad = expect.compileError.find((re) => !new RegExp(re).test(compileError));
    return bad === undefined ? { ok: true } : { ok: false, detail: `compile error ${JSON.stringify(compileError)} !~ ${bad}` };
  }
  if (expect.compiles) return compileError === undefined ? { ok: true } : { ok: false, detail: `compile error: ${compileError}` };
  if (!compiled.ok) {
    if (expect.error !== undefined && matchesText(compiled.message, expect.error, expect.errorMatch)) return { ok: true };
    return { ok: false, detail: `compile error: ${compiled.message}` };
  }
  const bindings = Object.fromEntries(Object.entries(c.bindings).map(([k, v]) => [k, toJsonDocument(v)]));
  const r = compiled.program.evaluate(bindings);
  if (!r.ok) {
    if (expect.error !== undefined && matchesText(r.message, expect.error, expect.errorMatch)) return { ok: true };
    return { ok: false, detail: `evaluation error: ${r.message}` };
  }
  const result: unknown = r.value;
  if (expect.error !== undefined) return { ok: false, detail: `expected error ${expect.error}, got ${show(result)}` };
  if (expect.optionalOf) {
    const ok = result instanceof CelOptional && result.hasValue() && celEquals(result.value(), expect.optionalOf);
    return ok ? { ok: true } : { ok: false, detail: `got ${show(result)}` };
  }
  if (expect.valueExpr !== undefined) {
    const e = env.compile(expect.valueExpr, { check: true });
    if (!e.ok) return { ok: false, detail: `valueExpr: ${e.message}` };
    const want = e.program.evaluate(bindings);
    if (!want.ok) return { ok: false, detail: `valueExpr: ${want.message}` };
    return celEquals(result, want.value) ? { ok: true } : { ok: false, detail: `got ${show(result)}, want ${show(want.value)}` };
  }
  if (expect.valueType === 'double' && typeof result !== 'number') return { ok: false, detail: `got ${show(result)}, want a double` };
  return celEquals(result, expect.value) && typeof result === typeof expect.value
    ? { ok: true }
    : { ok: false, detail: `got ${show(result)}, want ${show(expect.value)}` };
}
