/**
 * A seeded, bounded differential sweep of the built runtimes: the same damaged review bytes
 * (helpers/review-mutations.ts: structural mutations of real reviews, values only raw JSON can carry,
 * byte-level damage) sent to the built Node server (its review workers, and in process), the built Lambda handler (a
 * Function URL event, the body base64 as Lambda gives bytes) and the built Worker in workerd, and to the
 * server and the handler on Node 24 too when its binary is installed, all on the bundled policies with
 * the same limits; on the library, the built CLI's `amender review` too, for the reviews its policies
 * patch. One engine, one answer: the status, the content type and the body's text are the same
 * everywhere, whatever the bytes (V8's own words, which differ between versions, never reach an answer);
 * and none is a 5xx.
 *
 * Fixed seeds: a failure names its seed and case. FUZZ_RUNTIME_SEEDS=1,2,3 and FUZZ_RUNTIME_CASES=n sweep more.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN } from '../node/built.js';
import { OTHER_NODES, THIS_NODE } from '../node/nodes.js';
import { startBundle, type Running } from '../node/bundle.js';
import { ensureBuilt, httpCases, ROOT } from '../runtimes/helpers.js';
import { functionUrlEvent, startLambda, type LambdaProcess } from '../runtimes/lambda.js';
import { startWorker, type RunningWorker } from '../runtimes/workers.js';
import { inParallel } from './helpers/in-parallel.js';
import { Prng, seedsFrom } from './helpers/prng.js';
import { fuzzCase, type Obj } from './helpers/review-mutations.js';
import { troubleIn } from './helpers/log-trouble.js';
import { libraryPolicyFiles, libraryResources, reviewOf } from './helpers/library-corpus.js';

const SEEDS = seedsFrom(process.env.FUZZ_RUNTIME_SEEDS, [0x3e7a]);
const CASES_PER_SEED = Number(process.env.FUZZ_RUNTIME_CASES ?? 200);
const LIBRARY_CASES = Number(process.env.FUZZ_RUNTIME_LIBRARY_CASES ?? 120);
/** Cases in flight at once, each asked of every participant together. */
const CASES_AT_ONCE = 4;
/** The same limits in every runtime; a body limit small enough that the sweep's large cases pass it. */
const LIMITS = { maxBodyBytes: 1 << 20, maxJsonDepth: 1000 };
const ENV = { AMENDER_MAX_BODY_BYTES: String(LIMITS.maxBodyBytes) };
const JSON_HEADERS = { 'content-type': 'application/json' };

/** What a runtime answered, as the API server would read it. */
interface Answer {
  status: number;
  contentType: string | null;
  text: string;
}

/** The reviews of the runtime tests' calls (a Pod with a sidecar to add, a Pod with debug variables, a Deployment, a deletion). */
function seedReviews(): Obj[] {
  return httpCases()
    .filter((c) => c.method === 'POST' && c.body?.includes('"AdmissionReview"'))
    .map((c) => JSON.parse(c.body!) as Obj);
}

async function fromFetch(url: string, body: Uint8Array): Promise<Answer> {
  const res = await fetch(url, { method: 'POST', headers: JSON_HEADERS, body });
  return { status: res.status, contentType: res.headers.get('content-type'), text: await res.text() };
}

async function fromLambda(lambda: LambdaProcess, body: Uint8Array): Promise<Answer> {
  const event = functionUrlEvent({ name: 'review', method: 'POST', path: '/mutate', headers: JSON_HEADERS }, false) as Obj;
  event.body = Buffer.from(body).toString('base64');
  event.isBase64Encoded = true;
  event.headers['content-length'] = String(body.length);
  const result = await lambda.invoke(event, 30_000);
  const text = result.body === undefined ? '' : result.isBase64Encoded ? Buffer.from(result.body, 'base64').toString('utf8') : result.body;
  const contentType = Object.entries(result.headers ?? {}).find(([name]) => name.toLowerCase() === 'content-type')?.[1] ?? null;
  return { status: result.statusCode, contentType, text };
}

/** What the built CLI's `amender review` prints for `review` (given on standard input) against the policies of `folder`. */
async function cliReview(folder: string, review: string): Promise<string> {
  const child = spawn(process.execPath, [CLI_BIN, 'review', '--policies', folder, '--quiet'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin.end(review);
  const code = await new Promise<number | null>((exited) => child.once('close', exited));
  if (code !== 0) throw new Error(`amender review exited ${code}: ${stderr}`);
  return stdout;
}

/** One runtime under the sweep: its name, and how it answers a review's bytes. */
interface Participant {
  name: string;
  ask(body: Uint8Array): Promise<Answer>;
  logs(): Record<string, unknown>[];
  stop(): Promise<unknown>;
}

/** Where a participant reads its policies: the bundled set, or a folder (Node, Lambda) and the same files in R2 (Workers). */
interface PolicyPlace {
  env: Record<string, string>;
  workerEnv: Record<string, string>;
  objects: Record<string, string>;
}
const BUNDLED: PolicyPlace = { env: ENV, workerEnv: ENV, objects: {} };

const nodeServer = async (name: string, node: string, place: PolicyPlace, env: Record<string, string> = {}): Promise<Participant> => {
  const server: Running = await startBundle({ ...place.env, ...env }, { node });
  return {
    name,
    ask: (body) => fromFetch(`${server.url}/mutate`, body),
    logs: () => server.lines,
    stop: async () => {
      expect(server.stderr()).toBe('');
      return server.stop();
    },
  };
};

const lambdaHandler = async (name: string, node: string, place: PolicyPlace): Promise<Participant> => {
  const lambda = await startLambda(place.env, { node });
  return { name, ask: (body) => fromLambda(lambda, body), logs: () => lambda.logs, stop: () => lambda.stop() };
};

const worker = async (place: PolicyPlace): Promise<Participant> => {
  const running: RunningWorker = await startWorker(place.workerEnv, place.objects);
  return { name: 'Workers', ask: (body) => fromFetch(`${running.origin}/mutate`, body), logs: () => running.logs, stop: () => running.dispose() };
};

/**
 * Every participant on `place`: the server (with its review workers, and reviewing in process), the
 * handler and the Worker, and the server and handler on Node 24 when installed.
 */
function everyParticipant(place: () => PolicyPlace): () => Participant[] {
  let participants: Participant[] = [];
  beforeAll(async () => {
    ensureBuilt();
    const others = OTHER_NODES.filter((node) => node.path !== undefined);
    participants = await Promise.all([
      nodeServer(`Node ${THIS_NODE.major} server`, THIS_NODE.path!, place()),
      nodeServer(`Node ${THIS_NODE.major} server, reviews in process`, THIS_NODE.path!, place(), { AMENDER_WORKERS: '0' }),
      lambdaHandler(`Lambda on Node ${THIS_NODE.major}`, THIS_NODE.path!, place()),
      worker(place()),
      ...others.flatMap((node) => [nodeServer(`${node.name} server`, node.path!, place()), lambdaHandler(`Lambda on ${node.name}`, node.path!, place())]),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(participants.map((p) => p.stop()));
  });
  return () => participants;
}

/** `body` asked of every participant at once. */
const askEveryone = (participants: Participant[], body: Uint8Array) => Promise.all(participants.map((p) => p.ask(body)));

const allAlike = (answers: Answer[]) => answers.every((a) => JSON.stringify(a) === JSON.stringify(answers[0]));

/** A failure's lines: where, then each participant's answer under its name. */
function sideBySide(where: string, participants: Participant[], answers: Answer[]): string {
  return `${where}${answers.map((a, k) => `\n  ${participants[k].name}: ${a.status} ${a.contentType} ${a.text.slice(0, 300)}`).join('')}`;
}

/**
 * `cases` damaged reviews of `seed` made from `seeds`, each sent to every participant: the answers that
 * differ (at most five), the count of each status, and how many answers carried a patch.
 */
async function sweepRuntimes(participants: Participant[], seed: number, seeds: Obj[], cases: number): Promise<{ differences: string[]; statuses: Map<number, number>; patched: number }> {
  const rng = new Prng(seed);
  // Made in order from the seed, then asked a few at a time.
  const made = Array.from({ length: cases }, (_, i) => ({ i, ...fuzzCase(rng, seeds, LIMITS) }));
  const differences: string[] = [];
  const statuses = new Map<number, number>();
  let patched = 0;
  await inParallel(
    made,
    CASES_AT_ONCE,
    async ({ i, name, body }) => {
      const answers = await askEveryone(participants, body);
      const [first] = answers;
      statuses.set(first.status, (statuses.get(first.status) ?? 0) + 1);
      if (first.text.includes('"patch":')) patched++;
      // How far a review got by its deadline is timing, not input.
      const timed = answers.some((a) => a.text.includes('deadline exceeded'));
      if ((!timed && !allAlike(answers)) || answers.some((a) => a.status >= 500)) differences.push(sideBySide(`seed ${seed} case ${i} (${name}, ${body.length} bytes)`, participants, answers));
    },
    () => differences.length >= 5,
  );
  return { differences, statuses, patched };
}

describe('the same damaged reviews through every built runtime, on the bundled policies', () => {
  const participants = everyParticipant(() => BUNDLED);

  it.each(SEEDS.map((seed) => [seed]))(`gives the same answer in every runtime to each of ${CASES_PER_SEED} damaged reviews of seed %i`, async (seed) => {
    const { differences, statuses, patched } = await sweepRuntimes(participants(), seed, seedReviews(), CASES_PER_SEED);
    expect(differences.join('\n\n')).toBe('');
    // Not a vacuous sweep: damaged reviews are patched, and refused.
    expect(patched).toBeGreaterThan(CASES_PER_SEED / 10);
    expect(statuses.get(400) ?? 0).toBeGreaterThan(CASES_PER_SEED / 10);
    expect(troubleIn(participants().flatMap((p) => p.logs()))).toEqual([]);
  }, 300_000);
});

describe('the same damaged reviews through every built runtime, on the kyverno/policies library', () => {
  const folder = mkdtempSync(join(tmpdir(), 'amender-fuzz-runtimes-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  let written: PolicyPlace | undefined;
  // Written once, before the first participant starts to read it.
  const place = (): PolicyPlace => (written ??= writeLibrary());
  const writeLibrary = (): PolicyPlace => {
    const objects: Record<string, string> = {};
    for (const [i, path] of libraryPolicyFiles().entries()) {
      const name = `${String(i).padStart(4, '0')}-${basename(path)}`;
      const text = readFileSync(path, 'utf8');
      writeFileSync(join(folder, name), text);
      objects[`library/${name}`] = text;
    }
    return { env: { ...ENV, AMENDER_POLICY_SOURCES: `file://${folder}` }, workerEnv: { ...ENV, AMENDER_POLICY_SOURCES: 'r2://POLICIES/library' }, objects };
  };
  const participants = everyParticipant(place);
  const seeds = () => libraryResources().flatMap((object) => [reviewOf(object), reviewOf(object, 'UPDATE', { ...object, metadata: { ...object.metadata, labels: { old: 'yes' } } })]);

  it("answers each library test resource's review alike in every runtime", async () => {
    const differences: string[] = [];
    let patched = 0;
    await inParallel(seeds(), CASES_AT_ONCE, async (review) => {
      const answers = await askEveryone(participants(), new TextEncoder().encode(JSON.stringify(review)));
      if (answers[0].text.includes('"patch":')) patched++;
      if (!allAlike(answers)) differences.push(sideBySide(`${review.request.uid} ${review.request.name}`, participants(), answers));
    });
    expect(differences.slice(0, 5).join('\n\n')).toBe('');
    // The library set is in force everywhere: its policies patch their own test resources.
    expect(patched).toBeGreaterThan(10);
  }, 120_000);

  it("gives the same reply from the CLI's `amender review` as from the server, for 12 reviews the library patches and 3 it allows", async () => {
    const patched: { review: Obj; text: string }[] = [];
    const allowed: { review: Obj; text: string }[] = [];
    for (const review of seeds()) {
      const answer = await participants()[0].ask(new TextEncoder().encode(JSON.stringify(review)));
      if (answer.status === 200) (answer.text.includes('"patch":') ? patched : allowed).push({ review, text: answer.text });
    }
    const reviews = [...patched.slice(0, 12), ...allowed.slice(0, 3)];
    expect(reviews.length).toBe(15);
    const differences: string[] = [];
    await inParallel(reviews, CASES_AT_ONCE, async ({ review, text }) => {
      const printed = await cliReview(folder, JSON.stringify(review));
      if (JSON.stringify(JSON.parse(printed)) !== text) differences.push(`${review.request.uid} ${review.request.name}\n  server: ${text.slice(0, 300)}\n  CLI:    ${printed.slice(0, 300)}`);
    });
    expect(differences.slice(0, 5).join('\n\n')).toBe('');
  }, 120_000);

  it.each(SEEDS.map((seed) => [seed]))(`gives the same answer in every runtime to each of ${LIBRARY_CASES} damaged library reviews of seed %i`, async (seed) => {
    const { differences, statuses } = await sweepRuntimes(participants(), seed, seeds(), LIBRARY_CASES);
    expect(differences.join('\n\n')).toBe('');
    // The library's policies patch few of their own resources (the test above), fewer still damaged: its
    // non-vacuity is there; here, damaged reviews are answered and refused.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(LIBRARY_CASES / 10);
    expect(statuses.get(400) ?? 0).toBeGreaterThan(LIBRARY_CASES / 20);
    expect(troubleIn(participants().flatMap((p) => p.logs()))).toEqual([]);
  }, 300_000);
});
