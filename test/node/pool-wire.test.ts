/**
 * The packed form in which a review worker's answers cross to the main thread (pool/wire.ts): after a
 * structured clone, as a worker's message makes, the main thread reads the same answers in the same order
 * (admission replies with or without subject and outcomes, other answers among them), each reply's text
 * as the worker wrote it, and only the outcome fields the main thread uses.
 */
import { describe, expect, it } from 'vitest';
import { AnswerPacker, unpackAnswers } from '../../src/adapters/pool/wire.js';
import type { PolicyOutcome } from '../../src/engine/index.js';
import { failure, type ReviewAnswer } from '../../src/server/index.js';

function admitted(uid: string, extra: Partial<Extract<ReviewAnswer, { status: 200 }>> = {}): Extract<ReviewAnswer, { status: 200 }> {
  return {
    status: 200,
    outcome: 'patched',
    uid,
    patchOps: 2,
    body: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid, allowed: true } },
    ...extra,
  };
}

const MAP_OUTCOME: PolicyOutcome = {
  engine: 'MutatingAdmissionPolicy',
  policy: 'label-team',
  binding: 'label-team-binding',
  pass: 1,
  result: 'mutated',
  durationMs: 0.125,
  detail: 'quotes the object: never crosses',
};
const KYVERNO_OUTCOME: PolicyOutcome = {
  engine: 'Kyverno',
  policy: 'owner',
  pass: 1,
  result: 'error',
  ignored: true,
  failurePolicy: 'Ignore',
  aborted: 'deadline',
  durationMs: 2.5,
  rules: [
    { rule: 'add-owner', status: 'applied', durationMs: 0.5 },
    { rule: 'copy-missing', status: 'error', durationMs: 1 },
  ],
};

/** What the main thread reads of an outcome: all but detail, param and policyKind. */
function crossed(o: PolicyOutcome): PolicyOutcome {
  const { detail: _detail, param: _param, policyKind: _kind, ...rest } = o as PolicyOutcome & { detail?: unknown; param?: unknown; policyKind?: unknown };
  return rest;
}

/** What an answer read from the wire says of its policies. */
function outcomesOf(answer: ReviewAnswer): readonly PolicyOutcome[] | undefined {
  return 'outcomes' in answer ? answer.outcomes : undefined;
}

function roundTrip(answers: [number, ReviewAnswer][]): { id: number; answer: ReviewAnswer }[] {
  const packer = new AnswerPacker();
  for (const [id, answer] of answers) packer.add(id, answer);
  expect(packer.size).toBe(answers.length);
  const packed = packer.take();
  expect(packed).toBeDefined();
  return unpackAnswers(structuredClone(packed!));
}

describe('review answers packed for the crossing to the main thread', () => {
  it('reads every answer back in order, other answers in their places', () => {
    const withEverything = admitted('uid-1', {
      subject: { kind: 'Pod', namespace: 'shop', name: 'checkout-é🚀', operation: 'CREATE' },
      outcomes: [MAP_OUTCOME, KYVERNO_OUTCOME],
      body: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'uid-1', allowed: true, warnings: ['déjà 🚀'] } },
    });
    const bare = admitted('uid-2', { outcome: 'allowed', patchOps: 0 });
    const noOutcomesYet = admitted('uid-3', { outcomes: [] });
    const busy = failure(503, 'unavailable', 'all review workers are busy', { uid: 'uid-4' });
    const broken = failure(500, 'error', 'internal error while evaluating a review', { error: new TypeError('boom') });
    const unicode = admitted('uid-5', { body: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'uid-5', allowed: true, warnings: ['naïve ✓ 𝄞'] } } });

    const read = roundTrip([
      [11, withEverything],
      [12, busy],
      [13, bare],
      [14, noOutcomesYet],
      [15, broken],
      [16, unicode],
    ]);

    expect(read.map((a) => a.id)).toEqual([11, 12, 13, 14, 15, 16]);
    const [first, second, third, fourth, fifth, sixth] = read.map((a) => a.answer);

    expect(first).toMatchObject({ status: 200, outcome: 'patched', uid: 'uid-1', patchOps: 2, subject: withEverything.subject });
    expect((first as { bodyText: string }).bodyText).toBe(JSON.stringify(withEverything.body));
    expect(first.body).toEqual(withEverything.body);
    expect(outcomesOf(first)).toEqual([crossed(MAP_OUTCOME), crossed(KYVERNO_OUTCOME)]);

    expect(second).toEqual(busy);

    expect(third).toMatchObject({ status: 200, outcome: 'allowed', uid: 'uid-2', patchOps: 0 });
    expect('subject' in third && third.subject !== undefined).toBe(false);
    expect(outcomesOf(third)).toBeUndefined();
    expect(third.body).toEqual(bare.body);

    expect(outcomesOf(fourth)).toEqual([]);

    // An Error does not keep its class across threads: its text (with the stack) does.
    expect(fifth).toMatchObject({ status: 500, outcome: 'error' });
    expect((fifth as { error: unknown }).error).toEqual(expect.stringContaining('TypeError: boom'));

    // Offsets are in UTF-16 units, as the texts are sliced: non-ASCII replies before and after stay whole.
    expect(sixth.body).toEqual(unicode.body);
    expect((sixth as { bodyText: string }).bodyText).toBe(JSON.stringify(unicode.body));
  });

  it('sends a reply already serialized as it is', () => {
    const bodyText = '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","allowed":true}}';
    const [read] = roundTrip([[1, admitted('u', { bodyText })]]);
    expect((read.answer as { bodyText: string }).bodyText).toBe(bodyText);
  });

  it('starts a new message after take, and has none to send when nothing was added', () => {
    const packer = new AnswerPacker();
    expect(packer.take()).toBeUndefined();
    packer.add(1, admitted('a', { outcomes: [MAP_OUTCOME] }));
    packer.add(2, failure(503, 'unavailable', 'busy'));
    expect(unpackAnswers(structuredClone(packer.take()!)).map((a) => a.id)).toEqual([1, 2]);
    expect(packer.size).toBe(0);
    expect(packer.take()).toBeUndefined();
    packer.add(3, admitted('b', { outcomes: [KYVERNO_OUTCOME] }));
    const [next] = unpackAnswers(structuredClone(packer.take()!));
    expect(next.id).toBe(3);
    // The new message's string table holds only its own strings.
    expect(outcomesOf(next.answer)).toEqual([crossed(KYVERNO_OUTCOME)]);
  });
});
