/**
 * `{{@}}` has one writer (src/kyverno/context/self-path.ts) for policy validation and for substitution
 * at run time. Checked here through the public interfaces, compiling a policy (Kyverno's validation)
 * and running a review, against the expression Kyverno writes (substituteVariablesIfAny in
 * pkg/engine/variables/vars.go @ 111e07bbecc6: the traversal path read by jsonpointer.ParsePath, cut after
 * the first `foreach`, two more segments dropped, written as JMESPath under `request.object`).
 *
 * Where that expression is no JMESPath, both sides name it: validation refuses the policy with
 * `failed to resolve <expression> at path …`, the review fails the rule with
 * `failed to resolve <expression> at …`. Where it parses, validation accepts the policy and the review
 * reads the value that expression selects (each case's resource holds a different value at each place
 * the expression could mean).
 */
import { describe, expect, it } from 'vitest';
import { getOwn, isJsonObject, type JsonObject, type JsonValue } from '../../src/json/index.js';
import { compileKyvernoPolicy, runKyvernoPolicies } from '../../src/kyverno/index.js';
import { clusterPolicy, podRequest } from './helpers/requests.js';

const ANNOTATIONS: JsonObject = {
  'app.kubernetes.io/name': 'slash',
  'deploy-zone': 'hyphen',
  'corp.com': 'dot',
  '7': 'digits',
  '007': 'zeros',
  '99999999999999999999': 'past uint64',
  'a"b': 'quote',
  'a\\b': 'backslash',
  ab: 'ab',
  'a\uFFFDb': 'replacement character',
  a: 'a',
  '바나나': 'hangul',
  'a\tb': 'tab',
  'name)': 'paren',
};

function resource(annotations: JsonObject = ANNOTATIONS): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', annotations },
    spec: { containers: [{ name: 'c', image: 'nginx' }] },
    b: { c: 'b.c' },
    c: 'c',
  };
}

/** Kyverno's policy validation: the message of the policy's variable problem, or undefined. */
function validation(rule: JsonObject): string | undefined {
  const compiled = compileKyvernoPolicy(clusterPolicy('p', [{ name: 'r', ...rule }]));
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.problems));
  return compiled.findings.find((f) => /invalid variables/.test(f.message))?.message;
}

/** The review: the rule's status, its message and the object after it. */
async function review(rule: JsonObject, object: JsonObject = resource()) {
  const compiled = compileKyvernoPolicy(clusterPolicy('p', [{ name: 'r', ...rule }]));
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.problems));
  const result = await runKyvernoPolicies([compiled.policy], { request: podRequest(object) });
  const [outcome] = result.policies[0].rules;
  return { status: outcome.status, message: outcome.message, object: result.object };
}

const annotationsOf = (object: JsonValue): JsonObject => {
  const meta = isJsonObject(object) ? getOwn(object, 'metadata') : undefined;
  const annotations = isJsonObject(meta) ? getOwn(meta, 'annotations') : undefined;
  return isJsonObject(annotations) ? annotations : {};
};

const annotate = (key: string, value = 'at:{{@}}') => ({ mutate: { patchStrategicMerge: { metadata: { annotations: { [key]: value } } } } });

interface Case {
  /** An annotation key holding `at:{{@}}` under a top-level patchStrategicMerge. */
  readonly key: string;
  /** The JMESPath Kyverno writes for `{{@}}` there. */
  readonly expression: string;
  /** What it reads in resource(), printed as Kyverno inserts it into a longer string; undefined: no JMESPath. */
  readonly reads?: string;
}

const CASES: Case[] = [
  { key: 'deploy-zone', expression: 'request.object.metadata.annotations."deploy-zone"', reads: 'hyphen' },
  { key: 'corp.com', expression: 'request.object.metadata.annotations."corp.com"', reads: 'dot' },
  // The traversal writes `/` as `\/`; ParsePath reads it back; the quoted identifier keeps it as is.
  { key: 'app.kubernetes.io/name', expression: 'request.object.metadata.annotations."app.kubernetes.io/name"', reads: 'slash' },
  // What parses as an unsigned 64-bit integer is an index, on a map too (null); past it, a quoted key.
  { key: '7', expression: 'request.object.metadata.annotations[7]', reads: 'null' },
  { key: '007', expression: 'request.object.metadata.annotations[007]', reads: 'null' },
  { key: '99999999999999999999', expression: 'request.object.metadata.annotations."99999999999999999999"', reads: 'past uint64' },
  // ParsePath: a double quote only groups, a backslash escapes the next character: both vanish.
  { key: 'a"b', expression: 'request.object.metadata.annotations.ab', reads: 'ab' },
  { key: 'a\\b', expression: 'request.object.metadata.annotations.ab', reads: 'ab' },
  // ParsePath stops at U+FFFD (the rune Go decodes at the end of a string).
  { key: 'a\uFFFDb', expression: 'request.object.metadata.annotations.a', reads: 'a' },
  { key: '바나나', expression: 'request.object.metadata.annotations."바나나"', reads: 'hangul' },
  { key: 'a\tb', expression: 'request.object.metadata.annotations."a\\tb"', reads: 'tab' },
  // `)` may stand in a bare identifier (Kyverno's range table), which then does not parse.
  { key: 'name)', expression: 'request.object.metadata.annotations.name)' },
];

describe('{{@}}: one expression for policy validation and for the review', () => {
  for (const c of CASES) {
    it(`${JSON.stringify(c.key)} → ${c.expression}`, async () => {
      const rule = annotate(c.key);
      const refused = validation(rule);
      const ran = await review(rule);
      if (c.reads === undefined) {
        expect(refused).toContain(`failed to resolve ${c.expression} at path /mutate/patchStrategicMerge/metadata/annotations/${c.key}: `);
        expect(ran.status).toBe('error');
        expect(ran.message).toContain(`failed to resolve ${c.expression} at path /mutate/patchStrategicMerge/metadata/annotations/${c.key}: `);
      } else {
        expect(refused).toBeUndefined();
        expect(ran.message).not.toMatch(/failed/);
        expect(getOwn(annotationsOf(ran.object), c.key)).toBe(`at:${c.reads}`);
      }
    });
  }

  it('an empty key is dropped from the path: the map itself', async () => {
    const ran = await review(annotate(''), resource({ '': 'empty', k: 'v' }));
    expect(validation(annotate(''))).toBeUndefined();
    expect(getOwn(annotationsOf(ran.object), '')).toBe('at:{"":"empty","k":"v"}');
  });

  it('a list index of the overlay is an index of the object', async () => {
    const rule = { mutate: { patchStrategicMerge: { spec: { containers: [{ name: 'c', image: 'at:{{@}}' }] } } } };
    expect(validation(rule)).toBeUndefined();
    const ran = await review(rule);
    expect(ran.object).toMatchObject({ spec: { containers: [{ name: 'c', image: 'at:nginx' }] } });
  });

  it('keys named foreach: everything up to the FIRST one is dropped, then two more segments', async () => {
    // /mutate/patchStrategicMerge/spec/foreach/a/foreach/b/c: past the first foreach, [a, foreach, b, c]
    // less two is request.object.b.c (past the last one, [b, c] less two would be request.object).
    const nested = (leaf: string) => ({ mutate: { patchStrategicMerge: { spec: { foreach: { a: { foreach: { b: { [leaf]: 'at:{{@}}' } } } } } } } });
    expect(validation(nested('c'))).toBeUndefined();
    const ran = await review(nested('c'));
    expect(ran.object).toMatchObject({ spec: { foreach: { a: { foreach: { b: { c: 'at:b.c' } } } } } });
    // The same cut, seen on both sides where the expression does not parse.
    expect(validation(nested('c)'))).toContain('failed to resolve request.object.b.c) at path /mutate/patchStrategicMerge/spec/foreach/a/foreach/b/c): ');
    const failed = await review(nested('c)'));
    expect(failed.message).toContain('failed to resolve request.object.b.c) at path /mutate/patchStrategicMerge/spec/foreach/a/foreach/b/c): ');
  });

  it('a map key is substituted at its map\'s path', async () => {
    // The key of annotations.b is `{{@}}` read at /mutate/patchStrategicMerge/metadata/annotations.
    const rule = { mutate: { patchStrategicMerge: { metadata: { annotations: { 'x-{{@}}': 'key' } } } } };
    expect(validation(rule)).toBeUndefined();
    const ran = await review(rule, resource({ k: 'v' }));
    expect(annotationsOf(ran.object)).toEqual({ k: 'v', 'x-{"k":"v"}': 'key' });
  });

  it('a condition is substituted on its own: {{@}} there is the whole object', async () => {
    // Validation substitutes the whole rule (/preconditions/all/0/key: request.object[0].key, which parses).
    const rule = (value: string) => ({ preconditions: { all: [{ key: '{{@}}', operator: 'Equals', value }] }, ...annotate('seen', 'yes') });
    expect(validation(rule('{{ request.object }}'))).toBeUndefined();
    expect((await review(rule('{{ request.object }}'))).status).toBe('applied');
    expect((await review(rule('{{ request.object.metadata }}'))).status).toBe('skipped');
  });

  it('a context entry: loaded from its own value, then substituted again with the whole rule (without foreach)', async () => {
    const context = [{ name: 'self', variable: { value: { x: { y: { spec: '{{@}}' } } } } }];
    // Loading: /x/y/spec less two is request.object.spec. The whole rule then: /context/0/variable/value/x/y/spec
    // less two is request.object.variable.value.x.y.spec, which parses (validation accepts) but is no key of the Pod.
    const plain = { context, ...annotate('image', '{{ self.x.y.spec.containers[0].image }}') };
    expect(validation(plain)).toBeUndefined();
    const ran = await review(plain);
    expect(ran.status).toBe('error');
    expect(ran.message).toContain('failed to resolve request.object.variable.value.x.y.spec at path /context/0/variable/value/x/y/spec: JMESPath query failed: Unknown key "variable" in path');
    // A foreach rule is not substituted whole: only the entry's patches, per element.
    const foreach = {
      context,
      mutate: { foreach: [{ list: "['one']", patchStrategicMerge: { metadata: { annotations: { image: '{{ self.x.y.spec.containers[0].image }}' } } } }] },
    };
    expect(validation(foreach)).toBeUndefined();
    expect(annotationsOf((await review(foreach)).object).image).toBe('nginx');
  });
});

describe('{{@}} in foreach: validation sees the whole rule, the review the entry\'s patches', () => {
  const nestedForeach = (overlay: JsonObject) => ({
    mutate: { foreach: [{ list: "['outer']", foreach: [{ list: "['inner']", patchStrategicMerge: overlay }] }] },
  });

  it('validation cuts after the FIRST foreach: the index of the entry and its patch key remain', () => {
    // /mutate/foreach/0/foreach/0/patchStrategicMerge/metadata/annotations/name): past the first foreach
    // [0, foreach, 0, patchStrategicMerge, metadata, annotations, name)], less two.
    expect(validation(nestedForeach({ metadata: { annotations: { 'name)': '{{@}}' } } }))).toContain(
      'failed to resolve request.object[0].patchStrategicMerge.metadata.annotations.name) at path /mutate/foreach/0/foreach/0/patchStrategicMerge/metadata/annotations/name): ',
    );
    // One level: [0, patchStrategicMerge, metadata, annotations, name)] less two.
    const single = { mutate: { foreach: [{ list: "['one']", patchStrategicMerge: { metadata: { annotations: { 'name)': '{{@}}' } } } }] } };
    expect(validation(single)).toContain('failed to resolve request.object.metadata.annotations.name) at path /mutate/foreach/0/patchStrategicMerge/metadata/annotations/name): ');
  });

  it('the review substitutes {patchStrategicMerge, patchesJson6902}: the patch key and the overlay\'s first key are dropped', async () => {
    // /patchStrategicMerge/metadata/annotations/name) less two: request.object.annotations.name).
    const unparsed = await review(nestedForeach({ metadata: { annotations: { 'name)': '{{@}}' } } }));
    expect(unparsed.message).toContain('failed to resolve request.object.annotations.name) at path /patchStrategicMerge/metadata/annotations/name): ');
    // /patchStrategicMerge/spec/b/c less two: request.object.b.c, whatever spec holds.
    const ran = await review(nestedForeach({ spec: { b: { c: 'at:{{@}}' } } }));
    expect(ran.object).toMatchObject({ spec: { b: { c: 'at:b.c' } } });
    // /patchStrategicMerge/spec/containers/0/image less two: request.object.containers, no key of a Pod.
    const failed = await review(nestedForeach({ spec: { containers: [{ name: 'c', image: '{{@}}' }] } }));
    expect(failed.status).toBe('error');
    expect(failed.message).toContain('failed to resolve request.object.containers[0].image at path /patchStrategicMerge/spec/containers/0/image: JMESPath query failed: Unknown key "containers" in path');
  });

  it('in a patchesJson6902 text (one string, two segments or fewer) {{@}} is the whole object', async () => {
    const patch = "- op: add\n  path: /metadata/annotations/kind\n  value: '{{@}}'";
    // The object, inserted into the text as Go's compact JSON (keys sorted), read back as a YAML string.
    const small = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'k', namespace: 'default', annotations: {} } };
    const printed = '{"apiVersion":"v1","kind":"Pod","metadata":{"annotations":{},"name":"k","namespace":"default"}}';
    const top = await review({ mutate: { patchesJson6902: patch } }, small);
    expect(annotationsOf(top.object).kind).toBe(printed);
    const inForeach = await review({ mutate: { foreach: [{ list: "['one']", patchesJson6902: patch }] } }, small);
    expect(annotationsOf(inForeach.object).kind).toBe(printed);
  });
});
