/**
 * A seeded, bounded fuzz sweep of the review path, in-process through the public app (createApp):
 * structural and byte-level mutations of real reviews (helpers/review-mutations.ts), 2,800 against one set
 * (the bundled policies, the 50-policy bench set, the Kyverno fixture policies and echo policies that carry
 * the review's values into the patch), about 770 against the MAP vectors, each vector's review through
 * its own set, and 600 against the kyverno/policies library copies (ClusterPolicies and MutatingPolicies,
 * all in one set), their test resources as the reviews. Each answer is checked against an oracle written from the README (helpers/review-oracle.ts):
 * a valid review gets a 200 AdmissionReview with its uid, whose patch applies to its object and leaves a
 * JSON object; an invalid one a 400 Status with a short message saying what was wrong; a body over the
 * limit 413. Never a 500 (no fault is injected here), never a throw, never a reply later than the review
 * deadline plus a second. The same body gets the same answer twice, and again given as text (a Lambda
 * event's plain body); no prototype is touched by the sweep.
 *
 * Fixed seeds: a failure names its seed and case. FUZZ_SEEDS=1,2,3 (and FUZZ_PER_VECTOR=n, FUZZ_LIBRARY_CASES=n) sweep more.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { LambdaRequest } from '../../src/adapters/lambda-request.js';
import { loadPolicies } from '../../src/cli/load.js';
import { nodeCliIO } from '../../src/cli/node-io.js';
import { applyPatch, type Operation } from '../../src/jsonpatch/index.js';
import { buildPolicySet } from '../../src/policyset/index.js';
import { createApp, fixedPolicySet, type LogRecord } from '../../src/server/index.js';
import { VECTOR_BUILD_OPTIONS, documents, vectorReview } from '../fixtures/map-vectors.js';
import { loadVectors } from '../map/helpers.js';
import { ROOT } from '../node/built.js';
import { Prng, seedsFrom } from './helpers/prng.js';
import { fuzzCase, type FuzzCase, type Obj } from './helpers/review-mutations.js';
import { fixturePolicyFiles, KYVERNO_FIXTURES, libraryPolicyFiles, libraryResources, reviewOf } from './helpers/library-corpus.js';
import { expectedAnswer, type Expected } from './helpers/review-oracle.js';

const LIMITS = { maxBodyBytes: 1 << 20, maxJsonDepth: 1000, reviewDeadlineMs: 2000 };
/** Cases per seed of the main sweep. */
const CASES_PER_SEED = 700;
/** What the seeded sweep must have done at least once (words of the cases' names). */
const HOSTILE_KINDS = [
  'retype request.uid to', 'delete request.kind', 'operation request.operation', 'retype request.object to', 'oldObject copied from its sibling',
  'a string of', 'levels of nesting', '100000 items', '1e400', '-0', '9007199254740993', '"\\ud800', '"a\\u0000b"', '__proto__', 'constructor', 'prototype',
  'duplicate key', 'duplicate item', 'rename', 'truncated at', 'trailing', 'a BOM', 'two BOMs', 'a NUL byte', 'bytes ff', 'bytes ed a0 80', 'a tiny body', 'a bit flipped',
];

/** Mutations of each MAP vector's review (about 100 vectors, each with its own policy set). */
const CASES_PER_VECTOR = Number(process.env.FUZZ_PER_VECTOR ?? 8);
const MAP_VECTOR_FILES = ['mutation/applyconfiguration.yaml', 'mutation/compilation.yaml', 'mutation/dispatcher.yaml', 'mutation/jsonpatch.yaml', 'mutation/plugin.yaml', 'integration/e2e.yaml', 'integration/integration.yaml'];
/** The main sweep's seeds: fixed, so a failure reproduces from its seed and case number. */
const SEEDS = seedsFrom(process.env.FUZZ_SEEDS, [0x5eed1, 0x5eed2, 0x5eed3, 0x5eed4]);

/** The reviews mutated: the fixture review, and a review of each Kyverno fixture case's object (CREATE, UPDATE, DELETE). */
function seedReviews(): Obj[] {
  const podCreate = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/reviews/pod-create.json'), 'utf8')) as Obj;
  const seeds: Obj[] = [podCreate, { ...podCreate, apiVersion: 'admission.k8s.io/v1beta1' }];
  for (const dir of readdirSync(KYVERNO_FIXTURES)) {
    const test = parseYaml(readFileSync(join(KYVERNO_FIXTURES, dir, 'amender-test.yaml'), 'utf8')) as Obj;
    for (const c of test.cases ?? []) {
      if (!c.object || typeof c.object !== 'object') continue;
      seeds.push(reviewOf(c.object));
      seeds.push(reviewOf(c.object, 'UPDATE', { ...c.object, metadata: { ...c.object.metadata, labels: { old: 'yes' } } }));
    }
  }
  seeds.push(reviewOf(podCreate.request.object, 'DELETE', podCreate.request.object));
  return seeds;
}

interface Answer {
  status: number;
  contentType: string | null;
  text: string;
  ms: number;
}

const STATUS_MESSAGES = /^(malformed JSON: |invalid AdmissionReview: |request body is not valid UTF-8$|empty request body: )/;

/** Every value of a patched object is JSON: objects, arrays, strings, booleans, null and numbers (non-finite only where the review had them). */
function expectJson(value: unknown, allowNonFinite: boolean, where: string): void {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v === 'string' || typeof v === 'boolean') continue;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) expect(allowNonFinite, `${where}: a non-finite number in the patched object`).toBe(true);
      continue;
    }
    expect(typeof v === 'object' && (Array.isArray(v) || Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null), `${where}: ${typeof v}`).toBe(true);
    stack.push(...Object.values(v as object));
  }
}

function hasNonFinite(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'number' && !Number.isFinite(v)) return true;
    if (v !== null && typeof v === 'object') stack.push(...Object.values(v));
  }
  return false;
}

/** Checks one answer against what the oracle expects of its body. */
function checkAnswer(label: string, expected: Expected, answer: Answer): void {
  const shown = `${label}\n  → ${answer.status} ${answer.text.slice(0, 400)}`;
  expect(answer.ms, `${shown}\n  took ${answer.ms} ms`).toBeLessThan(LIMITS.reviewDeadlineMs + 1000);
  expect(answer.contentType, shown).toMatch(/^application\/json/);
  expect(answer.text, shown).not.toContain('internal error');
  const body = JSON.parse(answer.text) as Obj;
  expect(answer.status, `${shown}\n  expected ${expected.status} (${'why' in expected ? expected.why : 'valid'})`).toBe(expected.status);
  if (expected.status !== 200) {
    expect(body, shown).toMatchObject({ kind: 'Status', code: expected.status });
    expect(typeof body.message, shown).toBe('string');
    // A clear message: says what was wrong, without quoting the review back at length.
    if (expected.status === 400) expect(body.message, shown).toMatch(STATUS_MESSAGES);
    expect(body.message.length, shown).toBeLessThan(1000);
    return;
  }
  expect(body.apiVersion, shown).toBe(expected.apiVersion);
  expect(body.kind, shown).toBe('AdmissionReview');
  expect(body.response.uid, shown).toBe(expected.uid);
  expect(typeof body.response.allowed, shown).toBe('boolean');
  if (!body.response.allowed) {
    expect(body.response.patch, shown).toBeUndefined();
    expect(typeof body.response.status?.code, shown).toBe('number');
    return;
  }
  if (body.response.patch === undefined) return;
  expect(body.response.patchType, shown).toBe('JSONPatch');
  const ops = JSON.parse(Buffer.from(body.response.patch, 'base64').toString('utf8')) as Operation[];
  expect(Array.isArray(ops) && ops.length > 0, shown).toBe(true);
  const object = structuredClone(expected.object) as any;
  const result = applyPatch(object, ops, 'rfc6902');
  expect(result.ok, `${shown}\n  patch ${JSON.stringify(ops).slice(0, 400)}\n  ${result.ok ? '' : result.message}`).toBe(true);
  if (!result.ok) return;
  expect(result.doc !== null && typeof result.doc === 'object' && !Array.isArray(result.doc), `${shown}: the patched object is not an object`).toBe(true);
  expectJson(result.doc, hasNonFinite(expected.object), shown);
}

/** Own properties of the prototypes a polluted key would land on, with their descriptors. */
function prototypeSnapshot(): string {
  const describeProto = (proto: object) =>
    Reflect.ownKeys(proto)
      .map((k) => {
        const d = Object.getOwnPropertyDescriptor(proto, k)!;
        return `${String(k)}:${typeof d.value}:${typeof d.get}:${typeof d.set}:${String(d.enumerable)}`;
      })
      .sort()
      .join(',');
  return [Object.prototype, Array.prototype, Function.prototype, String.prototype, Number.prototype].map(describeProto).join('\n');
}

type Fetch = (request: Request) => Response | Promise<Response>;

/**
 * POSTs a body to /mutate: bytes as the Node server and Workers hold them, or text as the Lambda adapter
 * holds a plain event body (a LambdaRequest, whose text the route takes without encoding it).
 */
async function send(app: Fetch, body: Uint8Array | string): Promise<Answer> {
  const started = performance.now();
  const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body };
  const request = typeof body === 'string' ? (new LambdaRequest('https://amender.test/mutate', init) as unknown as Request) : new Request('http://amender.test/mutate', init);
  const res = await app(request);
  const text = await res.text();
  return { status: res.status, contentType: res.headers.get('content-type'), text, ms: performance.now() - started };
}

const UTF8_KEEPING_BOM = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The body's text, as a client would put it in a plain event body; undefined when it is not UTF-8. */
function asText(body: Uint8Array): string | undefined {
  try {
    return UTF8_KEEPING_BOM.decode(body);
  } catch {
    return undefined;
  }
}

/** What a sweep saw: answers by status and kind, and the first lines of each failing case. */
interface Tally {
  seen: Record<string, number>;
  failures: string[];
}

/** Sends one case (twice, for determinism), checks the answer and counts it; a failure is collected, not thrown. */
async function sweepCase(app: Fetch, label: string, body: Uint8Array, tally: Tally): Promise<void> {
  const expected = expectedAnswer(body, LIMITS);
  try {
    const first = await send(app, body);
    const kind = first.status !== 200 ? String(first.status) : first.text.includes('"patch":') ? 'patched' : first.text.includes('"allowed":false') ? 'denied' : 'allowed';
    tally.seen[kind] = (tally.seen[kind] ?? 0) + 1;
    checkAnswer(label, expected, first);
    // Determinism, unless the deadline decided (how far a review got before it is timing, not input).
    if (!first.text.includes('deadline exceeded')) {
      const second = await send(app, body);
      expect(`${second.status} ${second.text}`, `${label}: a second answer differs`).toBe(`${first.status} ${first.text}`);
      // The same body given as text (a Lambda event's plain body, its BOM kept) gets the same answer.
      const text = asText(body);
      if (text !== undefined) {
        const third = await send(app, text);
        expect(`${third.status} ${third.text}`, `${label}: the answer to the body as text differs`).toBe(`${first.status} ${first.text}`);
      }
    }
  } catch (err) {
    tally.failures.push(String((err as Error).message).split('\n').slice(0, 4).join('\n'));
  }
}

/** No failing case; every kind of answer reached (valid and invalid reviews, patches). */
function expectClean(tally: Tally, cases: number): void {
  expect(tally.failures.slice(0, 20).join('\n\n'), `${tally.failures.length} failing cases`).toBe('');
  const shown = JSON.stringify(tally.seen);
  const valid = (tally.seen.patched ?? 0) + (tally.seen.allowed ?? 0) + (tally.seen.denied ?? 0);
  expect(valid, shown).toBeGreaterThan(cases / 10);
  expect(tally.seen['400'] ?? 0, shown).toBeGreaterThan(cases / 10);
  expect(tally.seen.patched ?? 0, shown).toBeGreaterThan(cases / 20);
}

const logs: LogRecord[] = [];
const logger = (r: LogRecord) => logs.push(r);
const before = prototypeSnapshot();
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeAll(() => {
  process.on('unhandledRejection', onUnhandled);
});
afterAll(() => {
  process.off('unhandledRejection', onUnhandled);
});

describe('fuzzed reviews through the app', () => {
  let app: Fetch;
  let seeds: Obj[];
  const names: string[] = [];

  beforeAll(async () => {
    const echo = join(ROOT, 'test/reliability/helpers/echo-policies.yaml');
    const { set } = await loadPolicies(['bundled', join(ROOT, 'bench/fixtures/policies-50'), ...fixturePolicyFiles(), echo], nodeCliIO());
    expect(set.problems).toEqual([]);
    app = createApp({ policies: fixedPolicySet(set, 'fuzz'), limits: LIMITS, logger }).app.fetch;
    seeds = seedReviews();
  });

  it.each(SEEDS.map((seed) => [seed]))(`answers ${CASES_PER_SEED} mutated reviews of seed %i as the oracle says, the same twice`, async (seed) => {
    const rng = new Prng(seed);
    const tally: Tally = { seen: {}, failures: [] };
    for (let i = 0; i < CASES_PER_SEED; i++) {
      const c: FuzzCase = fuzzCase(rng, seeds, LIMITS);
      names.push(c.name);
      await sweepCase(app, `seed ${seed} case ${i}: ${c.name}`, c.body, tally);
    }
    expectClean(tally, CASES_PER_SEED);
  }, 120_000);

  it('swept every kind of hostile input the brief lists', () => {
    const all = names.join('\n');
    const missing = HOSTILE_KINDS.filter((kind) => !all.includes(kind));
    expect(missing).toEqual([]);
  });
});

describe('fuzzed reviews of the MAP vectors, each through its own policy set', () => {
  it(`answers ${CASES_PER_VECTOR} mutations of each vector's review as the oracle says, the same twice`, async () => {
    const rng = new Prng(0x5eed5);
    const tally: Tally = { seen: {}, failures: [] };
    let cases = 0;
    for (const file of MAP_VECTOR_FILES) {
      for (const v of loadVectors(file)) {
        const set = buildPolicySet(documents(v), VECTOR_BUILD_OPTIONS);
        const app = createApp({ policies: fixedPolicySet(set, v.name), limits: LIMITS, logger }).app.fetch;
        const seed = [vectorReview(v)];
        for (let i = 0; i < CASES_PER_VECTOR; i++, cases++) {
          const c = fuzzCase(rng, seed, LIMITS);
          await sweepCase(app, `${file} ${v.name} case ${i}: ${c.name}`, c.body, tally);
        }
      }
    }
    expectClean(tally, cases);
  }, 120_000);
});

/** Mutations of the library's own test resources, through every library policy at once. */
const LIBRARY_CASES = Number(process.env.FUZZ_LIBRARY_CASES ?? 600);

describe('fuzzed reviews of the kyverno/policies test resources, through every library policy at once', () => {
  it(`answers ${LIBRARY_CASES} mutations of the library's resources as the oracle says, the same twice`, async () => {
    const seeds = libraryResources().flatMap((object) => [reviewOf(object), reviewOf(object, 'UPDATE', { ...object, metadata: { ...object.metadata, labels: { old: 'yes' } } })]);
    expect(seeds.length).toBeGreaterThan(100);
    // The Namespaces of the reviews, so that policies with a namespaceSelector match rather than fail to configure.
    const namespaces = [...new Set(seeds.map((r) => String(r.request.namespace)))];
    const dir = mkdtempSync(join(tmpdir(), 'amender-fuzz-namespaces-'));
    const namespaceFile = join(dir, 'namespaces.yaml');
    writeFileSync(namespaceFile, namespaces.map((name) => stringifyYaml({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name } } })).join('---\n'));
    const policies = libraryPolicyFiles();
    // Policies that need a cluster (apiCall, configMap without values) are left out by the loader, as a server leaves them.
    const { set } = await loadPolicies([...policies, namespaceFile], nodeCliIO()).finally(() => rmSync(dir, { recursive: true, force: true }));
    expect(set.kyvernoPolicies.length + set.mutatingPolicies.length).toBeGreaterThan(60);
    const app = createApp({ policies: fixedPolicySet(set, 'library'), limits: LIMITS, logger }).app.fetch;
    const rng = new Prng(0x5eed6);
    const tally: Tally = { seen: {}, failures: [] };
    for (let i = 0; i < LIBRARY_CASES; i++) {
      const c = fuzzCase(rng, seeds, LIMITS);
      await sweepCase(app, `library case ${i}: ${c.name}`, c.body, tally);
    }
    expectClean(tally, LIBRARY_CASES);
  }, 120_000);
});

describe('after the sweeps', () => {
  it('logged no error and no unhandled rejection, and left every prototype as it was', () => {
    expect(logs.length).toBeGreaterThan(0);
    expect(logs.filter((l) => l.level === 'error' || Number(l.status) >= 500)).toEqual([]);
    expect(unhandled).toEqual([]);
    expect(prototypeSnapshot()).toBe(before);
    expect(({} as Obj).polluted).toBeUndefined();
    expect(([] as unknown as Obj).polluted).toBeUndefined();
  });
});
