import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseYaml11 } from '../../src/go/index.js';
import { parseJson, type JsonValue } from '../../src/json/index.js';
import { applyJsonPatch, applyPatch, PatchChain, type ApplyOptions, type Flavour } from '../../src/jsonpatch/index.js';

/**
 * evanphx/json-patch's own test tables (Cases, BadCases, TestCases of patch_test.go for v4 and
 * v5/patch_test.go for v5), copied as data into evanphx-tables.json, run case by case through our two
 * evanphx readings. A case marked `skip` tests what Amender has no counterpart for (the reason is in the
 * file).
 */
interface Case {
  doc: string;
  patch: string;
  result: string;
  allowMissingPathOnRemove?: boolean;
  ensurePathExistsOnAdd?: boolean;
  skip?: string;
}
interface BadCase {
  doc: string;
  patch: string;
  failOnDecode?: boolean;
  skip?: string;
}
interface TestCase {
  doc: string;
  patch: string;
  result: boolean;
  failedPath: string;
}
interface Tables {
  cases: Case[];
  bad: BadCase[];
  tests: TestCase[];
}

const file = join(dirname(fileURLToPath(import.meta.url)), 'evanphx-tables.json');
const tables = JSON.parse(readFileSync(file, 'utf8')) as { v4: Tables; v5: Tables };

/** v5's NewApplyOptions (what `Apply` uses), with a case's two switches. */
const v5 = (c: { allowMissingPathOnRemove?: boolean; ensurePathExistsOnAdd?: boolean } = {}): ApplyOptions => ({
  engine: 'evanphx-v5',
  supportNegativeIndices: true,
  allowMissingPathOnRemove: c.allowMissingPathOnRemove ?? false,
  ensurePathExistsOnAdd: c.ensurePathExistsOnAdd ?? false,
});

/**
 * v4's DecodePatch reads `"value": null` as a nil node, which its `test` takes for "no value"; our
 * kubernetes flavour follows kube-apiserver, which writes a CEL null into the operation as the text
 * `null` (a node that is not nil) and leaves `value` out when the CEL field is unset. So a v4 table's
 * `test` with a null value is, in our terms, a `test` without one.
 */
function asV4Decoded(patch: JsonValue): JsonValue {
  if (!Array.isArray(patch)) return patch;
  return patch.map((op) => {
    if (typeof op !== 'object' || op === null || Array.isArray(op) || op.op !== 'test' || op.value !== null) return op;
    const { value: _value, ...rest } = op;
    return rest;
  });
}

function run(doc: string, patch: string, flavour: Flavour | ApplyOptions) {
  const ops = JSON.parse(patch) as JsonValue;
  return applyJsonPatch(JSON.parse(doc) as JsonValue, flavour === 'kubernetes' ? asV4Decoded(ops) : ops, flavour);
}

const label = (c: { doc: string; patch: string }) => `${c.doc.replace(/\s+/g, ' ').slice(0, 60)} <- ${c.patch.replace(/\s+/g, ' ').slice(0, 140)}`;

for (const [name, t, happy, plain] of [
  ['v4 (kubernetes flavour)', tables.v4, () => 'kubernetes', 'kubernetes'],
  ['v5 (Kyverno)', tables.v5, v5, v5()],
] as const) {
  describe(`evanphx/json-patch ${name}`, () => {
    it('has the tables', () => {
      expect(t.cases.length).toBeGreaterThan(25);
      expect(t.bad.length).toBeGreaterThan(20);
      expect(t.tests.length).toBeGreaterThan(10);
    });

    describe('Cases: applies to the expected document', () => {
      for (const c of t.cases.filter((x) => !x.skip)) {
        it(label(c), () => {
          const r = run(c.doc, c.patch, happy(c) as Flavour | ApplyOptions);
          if (!r.ok) throw new Error(r.message);
          expect(r.doc).toEqual(JSON.parse(c.result));
        });
      }
    });

    describe('BadCases: fails (to decode, or to apply)', () => {
      for (const c of t.bad.filter((x) => !x.skip)) {
        it(label(c), () => {
          const r = run(c.doc, c.patch, plain as Flavour | ApplyOptions);
          expect(r.ok).toBe(false);
        });
      }
    });

    describe('TestCases: test ops pass or fail with the library message', () => {
      for (const c of t.tests) {
        it(label(c), () => {
          const r = run(c.doc, c.patch, plain as Flavour | ApplyOptions);
          if (c.result) expect(r.ok ? true : r.message).toBe(true);
          else expect(r).toMatchObject({ ok: false, kind: 'test-failed', message: `testing value ${c.failedPath} failed: test failed` });
        });
      }
    });
  });
}

describe('v5: a copy from the root container\'s key "" copies its own node (partialDoc.get(""), partialArray.get(""))', () => {
  const kyverno = (doc: JsonValue, patch: JsonValue) => applyJsonPatch(doc, patch, 'kyverno');

  it('the document as the patch received it, not as earlier operations left it', () => {
    const r = kyverno({ a: 1 }, [
      { op: 'add', path: '/b', value: 2 },
      { op: 'copy', from: '', path: '/snap' },
      { op: 'copy', from: '/', path: '/slash' },
    ]);
    expect(r).toEqual({ ok: true, doc: { a: 1, b: 2, snap: { a: 1 }, slash: { a: 1 } } });
  });

  it('after add "" the value added; after replace "" none (null)', () => {
    expect(kyverno({ a: 1 }, [{ op: 'add', path: '', value: { z: 0 } }, { op: 'copy', from: '', path: '/c' }])).toEqual({ ok: true, doc: { z: 0, c: { z: 0 } } });
    expect(kyverno({ a: 1 }, [{ op: 'replace', path: '', value: { z: 0 } }, { op: 'copy', from: '', path: '/c' }])).toEqual({ ok: true, doc: { z: 0, c: null } });
  });

  it('a container below the root has no node of its own: null, whatever its "" member holds', () => {
    expect(kyverno({ a: { '': 5 }, l: [1] }, [{ op: 'copy', from: '/a/', path: '/x' }, { op: 'copy', from: '/l/', path: '/y' }])).toEqual({
      ok: true,
      doc: { a: { '': 5 }, l: [1], x: null, y: null },
    });
  });

  it('in a chain of patches (foreach), the document each patch received', () => {
    const chain = new PatchChain();
    const first = applyPatch({ a: 1 }, [{ op: 'add', path: '/b', value: 2 }], 'kyverno', undefined, chain);
    if (!first.ok) throw new Error(first.message);
    const second = applyPatch(first.doc, [{ op: 'add', path: '/c', value: 3 }, { op: 'copy', from: '', path: '/snap' }, { op: 'add', path: '/snap/d', value: 4 }], 'kyverno', undefined, chain);
    expect(second).toEqual({ ok: true, doc: { a: 1, b: 2, c: 3, snap: { a: 1, b: 2, d: 4 } } });
  });

  it('v4 (kube-apiserver) has no such node: a copy from "" finds no path', () => {
    expect(applyJsonPatch({ a: 1 }, [{ op: 'copy', from: '', path: '/snap' }], 'kubernetes')).toMatchObject({ ok: false });
  });

  it('replace "" with null (v5 Cases: the document becomes null) is refused, as Kyverno refuses the null resource after it', () => {
    expect(kyverno({}, [{ op: 'replace', path: '', value: null }])).toMatchObject({ ok: false, message: 'replace operation value must be object or array' });
  });
});

describe('v5 (Kyverno): a test compares scalars by their JSON text (lazyNode.equal: bytes.Equal)', () => {
  // What parsePatchText gives for a JSON patch text: numbers written as floats keep a float-literal mark.
  const ops = (text: string) => parseJson(text) as JsonValue;
  const kyverno = (doc: string, patch: string) => applyJsonPatch(parseJson(doc) as JsonValue, ops(patch), 'kyverno');

  it('a number written 1.0 or 1e3 in the patch text equals no document number (Go writes 1 and 1000)', () => {
    expect(kyverno('{"n": 1}', '[{"op": "test", "path": "/n", "value": 1.0}]')).toMatchObject({ ok: false, kind: 'test-failed' });
    expect(kyverno('{"n": 1.0}', '[{"op": "test", "path": "/n", "value": 1.0}]')).toMatchObject({ ok: false, kind: 'test-failed' });
    expect(kyverno('{"n": 1000}', '[{"op": "test", "path": "/n", "value": 1e3}]')).toMatchObject({ ok: false, kind: 'test-failed' });
    expect(kyverno('{"s": {"a": [1]}}', '[{"op": "test", "path": "/s", "value": {"a": [1.0]}}]')).toMatchObject({ ok: false, kind: 'test-failed' });
    expect(kyverno('{"a": 1}', '[{"op": "test", "path": "", "value": {"a": 1.0}}]')).toMatchObject({ ok: false, kind: 'test-failed' });
  });

  it('as Go writes them, numbers compare equal; so do they from a YAML patch text (Kyverno converts it with yaml.YAMLToJSON)', () => {
    expect(kyverno('{"n": 1.0, "f": 1.5, "b": 1e21}', '[{"op": "test", "path": "/n", "value": 1}, {"op": "test", "path": "/f", "value": 1.5}, {"op": "test", "path": "/b", "value": 1e21}]')).toMatchObject({ ok: true });
    expect(kyverno('{"s": {"a": [1, "x", null, true]}}', '[{"op": "test", "path": "/s", "value": {"a": [1, "x", null, true]}}]')).toMatchObject({ ok: true });
    expect(applyJsonPatch({ n: 1 }, parseYaml11('- {op: test, path: /n, value: 1.0}'), 'kyverno')).toMatchObject({ ok: true });
  });

  it('kube-apiserver (v4) compares the same values by value: its operations are marshalled from CEL', () => {
    expect(applyJsonPatch(parseJson('{"n": 1}') as JsonValue, ops('[{"op": "test", "path": "/n", "value": 1.0}]'), 'kubernetes')).toMatchObject({ ok: true });
  });
});
