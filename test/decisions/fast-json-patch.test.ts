/**
 * Decision 0002 (docs/decisions/0002-json-patch-applier.md): our RFC 6902 applier rather than
 * fast-json-patch. Each case is applied by our applier in the flavour that needs it (always run: these
 * are the behaviours the decision depends on), and — when the devDependency `fast-json-patch@3.1.1` is
 * installed — by the library, with and without its validation, to show where it differs. The library
 * half is skipped while the package is absent; it needs no other change to run.
 */
import { describe, expect, it } from 'vitest';
import { isFloatLiteral, parseJson, type JsonValue } from '../../src/json/index.js';
import { applyJsonPatch, type Flavour } from '../../src/jsonpatch/index.js';

const LIBRARY = 'fast-json-patch';
const fjp: any = await import(/* @vite-ignore */ LIBRARY).then((m) => m.default ?? m).catch(() => undefined);

type Outcome = { ok: true; doc: JsonValue } | { ok: false };

interface Case {
  name: string;
  flavour: Flavour;
  doc: JsonValue;
  ops: JsonValue;
  /** What the reference library (evanphx v5 with Kyverno's options, v4 for MAP) gives. */
  expected: Outcome;
}

const pod = (): JsonValue => ({ spec: { containers: [{ name: 'a' }, { name: 'b' }] }, metadata: { labels: { app: 'a' }, annotations: null } });

const CASES: Case[] = [
  {
    name: 'Kyverno: add /list/-1 appends',
    flavour: 'kyverno',
    doc: pod(),
    ops: [{ op: 'add', path: '/spec/containers/-1', value: { name: 'c' } }],
    expected: { ok: true, doc: { spec: { containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] }, metadata: { labels: { app: 'a' }, annotations: null } } },
  },
  {
    name: 'Kyverno: replace /list/-1 replaces the last element',
    flavour: 'kyverno',
    doc: pod(),
    ops: [{ op: 'replace', path: '/spec/containers/-1/name', value: 'z' }],
    expected: { ok: true, doc: { spec: { containers: [{ name: 'a' }, { name: 'z' }] }, metadata: { labels: { app: 'a' }, annotations: null } } },
  },
  {
    name: 'Kyverno: add creates missing parents',
    flavour: 'kyverno',
    doc: pod(),
    ops: [{ op: 'add', path: '/spec/volumes/0', value: { name: 'v' } }],
    expected: { ok: true, doc: { spec: { containers: [{ name: 'a' }, { name: 'b' }], volumes: [{ name: 'v' }] }, metadata: { labels: { app: 'a' }, annotations: null } } },
  },
  {
    name: 'Kyverno: add under a null parent replaces it with an object',
    flavour: 'kyverno',
    doc: pod(),
    ops: [{ op: 'add', path: '/metadata/annotations/x', value: 'y' }],
    expected: { ok: true, doc: { spec: { containers: [{ name: 'a' }, { name: 'b' }] }, metadata: { labels: { app: 'a' }, annotations: { x: 'y' } } } },
  },
  {
    name: 'Kyverno: remove of a missing parent is a no-op',
    flavour: 'kyverno',
    doc: pod(),
    ops: [{ op: 'remove', path: '/spec/nothing/here' }],
    expected: { ok: true, doc: pod() },
  },
  {
    name: 'Kyverno: replace of a missing key is an error (v5)',
    flavour: 'kyverno',
    doc: pod(),
    ops: [{ op: 'replace', path: '/metadata/labels/missing', value: 'x' }],
    expected: { ok: false },
  },
  {
    name: 'MAP: replace of a missing key adds it (v4 reads a missing key as null, no error)',
    flavour: 'kubernetes',
    doc: { a: 1 },
    ops: [{ op: 'replace', path: '/b', value: 2 }],
    expected: { ok: true, doc: { a: 1, b: 2 } },
  },
  {
    name: 'MAP: add at an index past the end is an error',
    flavour: 'kubernetes',
    doc: pod(),
    ops: [{ op: 'add', path: '/spec/containers/5', value: { name: 'c' } }],
    expected: { ok: false },
  },
  {
    name: 'MAP: add /list/-2 inserts before the last element (v4 negative indices)',
    flavour: 'kubernetes',
    doc: pod(),
    ops: [{ op: 'add', path: '/spec/containers/-2', value: { name: 'c' } }],
    expected: { ok: true, doc: { spec: { containers: [{ name: 'a' }, { name: 'c' }, { name: 'b' }] }, metadata: { labels: { app: 'a' }, annotations: null } } },
  },
  {
    name: 'MAP: move from a missing path is an error',
    flavour: 'kubernetes',
    doc: pod(),
    ops: [{ op: 'move', from: '/metadata/missing', path: '/metadata/x' }],
    expected: { ok: false },
  },
  {
    name: 'MAP: removing the root is an error',
    flavour: 'kubernetes',
    doc: pod(),
    ops: [{ op: 'remove', path: '' }],
    expected: { ok: false },
  },
];

function ours(c: Case): Outcome {
  const r = applyJsonPatch(c.doc, c.ops, c.flavour);
  return r.ok ? { ok: true, doc: r.doc } : { ok: false };
}

function library(c: Case, validate: boolean): Outcome {
  try {
    const r = fjp.applyPatch(c.doc, c.ops, validate, false);
    return { ok: true, doc: JSON.parse(JSON.stringify(r.newDocument ?? null)) as JsonValue };
  } catch {
    return { ok: false };
  }
}

describe('0002: what the applier must do (our applier)', () => {
  for (const c of CASES) it(c.name, () => expect(ours(c)).toEqual(c.expected));

  it('keeps the int/double distinction of untouched and copied values (1.0 stays a double)', () => {
    const doc = parseJson('{"spec": {"ratio": 1.0, "list": []}}') as JsonValue;
    const r = applyJsonPatch(doc, [{ op: 'copy', from: '/spec/ratio', path: '/spec/copy' }], 'rfc6902');
    expect(r.ok).toBe(true);
    const spec = (r.ok ? r.doc : null) as { [k: string]: JsonValue };
    expect(isFloatLiteral(spec.spec as object, 'ratio')).toBe(true);
  });

  it('fails as a whole and leaves the input untouched', () => {
    const doc = pod();
    const before = JSON.stringify(doc);
    const r = applyJsonPatch(doc, [{ op: 'add', path: '/metadata/labels/x', value: 'y' }, { op: 'remove', path: '/missing' }], 'kubernetes');
    expect(r.ok).toBe(false);
    expect(JSON.stringify(doc)).toBe(before);
  });
});

describe.skipIf(!fjp)('0002: fast-json-patch 3.1.1 on the same cases', () => {
  it('differs from the reference on every case, with and without validation', () => {
    const agreeing = CASES.filter((c) => [false, true].some((validate) => JSON.stringify(library(c, validate)) === JSON.stringify(c.expected)));
    // Where the library agrees in one mode, the other cases of the same flavour disagree in that mode.
    for (const validate of [false, true]) {
      const same = CASES.filter((c) => JSON.stringify(library(c, validate)) === JSON.stringify(c.expected)).map((c) => c.name);
      expect(same.length, `validate=${validate} agrees on ${same.join('; ')}`).toBeLessThan(CASES.length / 2);
    }
    expect(agreeing.length).toBeLessThan(CASES.length);
  });

  it('loses the float marks of the values it copies (it deep-copies through JSON text)', () => {
    const doc = parseJson('{"spec": {"ratio": 1.0}}') as JsonValue;
    const r = fjp.applyPatch(doc, [{ op: 'copy', from: '/spec/ratio', path: '/spec/copy' }], true, false);
    expect(isFloatLiteral(r.newDocument.spec, 'ratio')).toBe(false);
  });

  it("with its default mutateDocument=true, a patch failing half-way has already changed the caller's object", () => {
    const doc = pod() as { metadata: { labels: Record<string, string> } };
    expect(() => fjp.applyPatch(doc, [{ op: 'add', path: '/metadata/labels/x', value: 'y' }, { op: 'replace', path: '/missing/deep', value: 1 }], true)).toThrow();
    expect(doc.metadata.labels.x).toBe('y');
  });
});
