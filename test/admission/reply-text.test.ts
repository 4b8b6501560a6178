/** replyText writes every reply exactly as JSON.stringify does, whether it takes its direct path or not. */
import { describe, expect, it } from 'vitest';
import { allowReply, denyReply, replyText, type ReviewReply } from '../../src/admission/index.js';
import type { Operation } from '../../src/jsonpatch/index.js';

const patch: Operation[] = [
  { op: 'add', path: '/metadata/labels/team', value: 'payments' },
  { op: 'replace', path: '/spec/containers/0/image', value: 'nginx:1.27 "quoted" ünïcode \u2028 😀' },
];
const uids = ['705ab4f5-6393-11e8-b7cc-42010a800002', 'a "quoted" \\ uid', 'lone \ud800 surrogate', 'control \u0001 \n', ''];

describe('replyText', () => {
  it('writes admitted replies, with and without a patch, as JSON.stringify does', () => {
    for (const uid of uids) {
      for (const ops of [[], patch]) {
        const reply = allowReply(uid, ops);
        expect(replyText(reply), uid).toBe(JSON.stringify(reply));
        expect(JSON.parse(replyText(reply))).toEqual(JSON.parse(JSON.stringify(reply)));
      }
    }
  });

  it('writes replies with warnings, audit annotations or a denial as JSON.stringify does', () => {
    const replies: ReviewReply[] = [
      allowReply('u', patch, { warnings: ['one', 'two "2"'] }),
      allowReply('u', patch, { auditAnnotations: { 'a/b': 'c', __proto__: 'x' } as Record<string, string> }),
      denyReply('u', { code: 403, message: 'denied by "p"', reason: 'Forbidden' }, { warnings: ['w'] }),
    ];
    for (const reply of replies) expect(replyText(reply)).toBe(JSON.stringify(reply));
  });

  it('writes a reply changed after it was built as JSON.stringify does', () => {
    const changed: ((r: ReviewReply) => void)[] = [
      (r) => (r.response.patch = '"not base64"'),
      (r) => (r.response.warnings = ['added later']),
      (r) => (r.response.allowed = false),
      (r) => (r.apiVersion = 'admission.k8s.io/v1beta1' as ReviewReply['apiVersion']),
      (r) => (r.response.uid = 7 as unknown as string),
      (r) => {
        // Same members, another order.
        const { uid } = r.response;
        delete (r.response as { uid?: string }).uid;
        r.response.uid = uid;
      },
      (r) => {
        const { response } = r;
        delete (r as { response?: unknown }).response;
        r.response = response;
        (r as unknown as Record<string, unknown>).extra = 1;
      },
    ];
    for (const change of changed) {
      const reply = allowReply('u', patch);
      change(reply);
      expect(replyText(reply)).toBe(JSON.stringify(reply));
    }
  });
});
