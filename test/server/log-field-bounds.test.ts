/**
 * A review's client-controlled strings are copied into each of its log lines (the request line, one per
 * failed policy) at most MAX_LOGGED_* characters long, cut with a marker giving the full length; the
 * reply still echoes the uid whole. Through the Hono app's fetch, log records captured.
 */
import { describe, expect, it } from 'vitest';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { createApp, failure, fixedPolicySet, jsonLineLogger, type LogRecord, type Reviewer } from '../../src/server/index.js';
import { truncatedForLog } from '../../src/observe/index.js';
import { labelPolicy, podReview } from '../sources/helpers.js';

/** Two policies that fail on every Pod (failurePolicy Fail): two `policy failed` lines per review. */
const FAILING = ['one', 'two'].map((n) => labelPolicy(`fails-${n}`, 'x', 'y', '[JSONPatch{op: "add", path: "/metadata/labels/x", value: object.metadata.nope}]')).join('---\n');

const BIG = 200_000;

function makeApp(reviewer?: Reviewer) {
  const lines: string[] = [];
  const records: LogRecord[] = [];
  const write = jsonLineLogger((line) => lines.push(line));
  const { app } = createApp({
    policies: fixedPolicySet(buildPolicySet(parseDocuments('p.yaml', FAILING)), 'test'),
    logger: (r) => {
      records.push(r);
      write(r);
    },
    ...(reviewer ? { reviewer } : {}),
  });
  const post = (body: unknown) =>
    app.fetch(new Request('https://amender.test/mutate', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }));
  return { post, lines, records };
}

function reviewWith(request: Record<string, unknown>): Record<string, unknown> {
  const review = podReview() as { request: Record<string, unknown> };
  return { ...review, request: { ...review.request, ...request } };
}

describe('log lines of a review with huge client strings', () => {
  it('cut the uid in every line, and the reply still echoes it whole', async () => {
    const uid = 'u'.repeat(BIG);
    const { post, lines, records } = makeApp();
    const res = await post(reviewWith({ uid }));
    expect(res.status).toBe(200);
    const reply = (await res.json()) as { response: { uid: string; allowed: boolean } };
    expect(reply.response.uid).toBe(uid);
    expect(reply.response.allowed).toBe(false);
    expect(records.map((r) => r.msg).sort()).toEqual(['policy failed', 'policy failed', 'request']);
    for (const r of records) expect(r.uid).toBe(`${'u'.repeat(128)}…[truncated: ${BIG} characters]`);
    for (const line of lines) expect(line.length).toBeLessThan(2000);
  });

  it('cut the object’s name, namespace and kind in the policy lines', async () => {
    const long = 'n'.repeat(BIG);
    const { post, lines, records } = makeApp();
    const res = await post(reviewWith({ name: long, namespace: long, kind: { group: '', version: 'v1', kind: 'K'.repeat(BIG) } }));
    expect(res.status).toBe(200);
    const failed = records.filter((r) => r.msg === 'policy failed');
    expect(failed).toHaveLength(2);
    for (const r of failed) {
      expect(r.name).toBe(`${'n'.repeat(253)}…[truncated: ${BIG} characters]`);
      expect(r.namespace).toBe(r.name);
      expect(r.kind).toBe(`${'K'.repeat(253)}…[truncated: ${BIG} characters]`);
    }
    for (const line of lines) expect(line.length).toBeLessThan(2000);
  });

  it('cut the uid of a refused review, and a message quoting it', async () => {
    const uid = 'v'.repeat(BIG);
    const invalid = makeApp();
    const res = await invalid.post(reviewWith({ uid, operation: 'BOGUS' }));
    expect(res.status).toBe(400);
    expect(invalid.records[0].uid).toBe(`${'v'.repeat(128)}…[truncated: ${BIG} characters]`);
    // An internal error's message names the request by its uid (review.ts): the reply keeps it whole.
    const crashing: Reviewer = async () => failure(500, 'error', `internal error while evaluating request ${uid}`, { uid, error: new Error('boom') });
    const crashed = makeApp(crashing);
    const reply = await crashed.post(reviewWith({ uid }));
    expect(reply.status).toBe(500);
    expect(((await reply.json()) as { message: string }).message).toContain(uid);
    const line = crashed.records[0];
    const message = `internal error while evaluating request ${uid}`;
    expect(line.message).toBe(`${message.slice(0, 1024)}…[truncated: ${message.length} characters]`);
    expect(String(line.message).length).toBeLessThan(1100);
    for (const l of [...invalid.lines, ...crashed.lines]) expect(l.length).toBeLessThan(3000);
  });

  it('keep the API server’s uid whole', async () => {
    const { post, records } = makeApp();
    await post(reviewWith({ uid: '705ab4f5-6393-11e8-b7cc-42010a800002' }));
    for (const r of records) expect(r.uid).toBe('705ab4f5-6393-11e8-b7cc-42010a800002');
  });
});

describe('truncatedForLog', () => {
  it('keeps a short text, cuts a long one with its length, never between a surrogate pair', () => {
    expect(truncatedForLog('abc', 3)).toBe('abc');
    expect(truncatedForLog('abcd', 3)).toBe('abc…[truncated: 4 characters]');
    expect(truncatedForLog('ab😀cd', 3)).toBe('ab…[truncated: 6 characters]');
  });
});
