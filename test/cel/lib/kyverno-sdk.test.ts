/**
 * Kyverno's CEL libraries (kyverno/sdk `extensions/cel/libs`) compared case by case with their Go
 * implementations: corners where Amender gave other results or errors than Kyverno.
 */
import { describe, expect, it } from 'vitest';
import { compileExpression, Evaluation, type CelValue } from '../../../src/cel/index.js';

function run(expression: string, object: unknown = {}): { value?: CelValue; error?: string } {
  const r = compileExpression(expression, 'variable', { params: false, dialect: 'kyverno' });
  if (!r.ok) return { error: r.message };
  const out = new Evaluation({ object: object as never }, { budget: 10_000_000 }).evaluate(r.compiled);
  return out.ok ? { value: out.value } : { error: out.message };
}

const value = (e: string, object?: unknown) => {
  const r = run(e, object);
  if (r.error) throw new Error(r.error);
  return r.value;
};

describe('time library', () => {
  it("toCron reads the fields in the timestamp's own zone, as Go's Time.Minute/Hour/Day do", () => {
    expect(value('time.toCron(timestamp("2025-01-02T15:30:00Z"))')).toBe('30 15 2 1 4');
    expect(value('time.toCron(timestamp("2025-01-02T15:30:00+02:00"))')).toBe('30 15 2 1 4');
    expect(value('time.toCron(timestamp("2025-01-02T23:30:00-02:00"))')).toBe('30 23 2 1 4');
    // Truncate counts from the zero time on the instant and keeps the zone.
    expect(value('time.toCron(time.truncate(timestamp("2025-01-02T23:30:00-02:30"), duration("1h")))')).toBe('30 23 2 1 4');
  });
});

describe('math library', () => {
  it("round(v, p) scales by Go's math.Pow(10, p), whose rounding JavaScript's Math.pow does not share", () => {
    // Go: Pow(10, -5) is 1e-5 and Round(1.23456) / 1e-5 is 99999.99999999999; Math.pow(10, -5) is
    // 0.000009999999999999999, which gave 100000.00000000001.
    expect(value('math.round(123456.0, -5)')).toBe(99999.99999999999);
    expect(value('math.round(12345.0, -4)')).toBe(10000);
    expect(value('math.round(3.14159, 2)')).toBe(3.14);
    expect(value('math.round(-2.5, 0)')).toBe(-3);
    // Past the double range: Go's Pow overflows to +Inf (v·Inf / Inf) or underflows to 0 (0 / 0).
    expect(value('math.round(1.5, 400)')).toBeNaN();
    expect(value('math.round(1.5, -400)')).toBeNaN();
    expect(value('math.round(1e300, 10)')).toBe(Infinity);
  });
});

describe('image library: kyverno/sdk extensions/cel/libs/image lib_test.go TestImage cases', () => {
  const R = 'registry.k8s.io/kube-apiserver-arm64';
  const D = 'sha256:6aefddb645ee6963afd681b1845c661d0ea4c3b20ab9db86d9e753b203d385f2';
  const CASES: { name: string; expr: string; value?: unknown; runtimeErr?: string; compileErr?: RegExp }[] = [
    { name: 'parse', expr: `parseImageReference("${R}:latest") == parseImageReference("${R}:latest")`, value: true },
    { name: 'parse_invalid_image', expr: `parseImageReference("${R}:@")`, runtimeErr: `could not parse reference: ${R}:@` },
    { name: 'isImage', expr: `isImage("${R}:latest")`, value: true },
    { name: 'isImage_false', expr: `isImage("${R}:@")`, value: false },
    { name: 'isImage_noOverload', expr: 'isImage(0)', compileErr: /found no matching overload for 'isImage' applied to/ },
    { name: 'contains_digest_no_identifier', expr: `parseImageReference("${R}").containsDigest()`, value: false },
    { name: 'contains_digest_tag', expr: `parseImageReference("${R}:latest").containsDigest()`, value: false },
    { name: 'contains_digest_true', expr: `parseImageReference("${R}@${D}").containsDigest()`, value: true },
    { name: 'contains_digest_with_tag_true', expr: `parseImageReference("${R}:latest@${D}").containsDigest()`, value: true },
    { name: 'registry', expr: `parseImageReference("${R}").registry() == "registry.k8s.io"`, value: true },
    { name: 'registry_matches', expr: `parseImageReference("${R}").registry().matches("(registry.k8s.io|ghcr.io)")`, value: true },
    { name: 'repository', expr: `parseImageReference("${R}").repository() == "kube-apiserver-arm64"`, value: true },
    { name: 'identifier_tag', expr: `parseImageReference("${R}:testtag").identifier()`, value: 'testtag' },
    { name: 'default_identifier', expr: `parseImageReference("${R}").identifier()`, value: 'latest' },
    { name: 'identifer_digest', expr: `parseImageReference("${R}@${D}").identifier()`, value: D },
    { name: 'identifer_digest_and_tag', expr: `parseImageReference("${R}:latest@${D}").identifier()`, value: D },
    { name: 'tag', expr: `parseImageReference("${R}:testtag").tag()`, value: 'testtag' },
    { name: 'default_tag', expr: `parseImageReference("${R}").tag()`, value: 'latest' },
    { name: 'no_tag', expr: `parseImageReference("${R}@${D}").tag()`, value: '' },
    { name: 'no_digest', expr: `parseImageReference("${R}").digest()`, value: '' },
    { name: 'digest_tag', expr: `parseImageReference("${R}:testtag").digest()`, value: '' },
    { name: 'digest', expr: `parseImageReference("${R}@${D}").digest()`, value: D },
    { name: 'digest_digest_and_tag', expr: `parseImageReference("${R}:latest@${D}").digest() == "${D}"`, value: true },
  ];
  it.each(CASES)('$name', ({ expr, value: want, runtimeErr, compileErr }) => {
    if (compileErr) {
      const r = compileExpression(expr, 'variable', { params: false, dialect: 'kyverno' });
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.message).toMatch(compileErr);
      return;
    }
    const r = run(expr);
    if (runtimeErr) expect(r.error).toContain(runtimeErr);
    else expect(r.value).toEqual(want);
  });
});

describe('json library', () => {
  it("marshal writes an image() value as the reference as written (go-containerregistry's Tag/Digest MarshalJSON)", () => {
    const D = 'sha256:6aefddb645ee6963afd681b1845c661d0ea4c3b20ab9db86d9e753b203d385f2';
    expect(value('json.marshal(image("nginx"))')).toBe('"nginx"');
    expect(value(`json.marshal([image("nginx"), image("ghcr.io/org/app:1.0@${D}")])`)).toBe(`["nginx","ghcr.io/org/app:1.0@${D}"]`);
    expect(value('json.marshal({"img": image("localhost/ab:1")})')).toBe('{"img":"localhost/ab:1"}');
  });
});

describe('user library', () => {
  it('parseServiceAccount returns the Go struct user.ServiceAccount: only Name and Namespace compile, has() is false for an empty one', () => {
    expect(value('[parseServiceAccount("system:serviceaccount:foo:bar").Namespace, user.parseServiceAccount("system:serviceaccount:foo:bar").Name]')).toEqual(['foo', 'bar']);
    expect(value('parseServiceAccount("system:serviceaccount:foo:bar:baz").Name')).toBe('bar:baz');
    expect(value('[parseServiceAccount("something-else:123").Name, parseServiceAccount("something-else:123").Namespace]')).toEqual(['', '']);
    // cel-go ext.NativeTypes: a field is set when it is not Go's zero value.
    expect(value('[has(parseServiceAccount("bob").Name), has(parseServiceAccount("system:serviceaccount::sa").Namespace), has(parseServiceAccount("system:serviceaccount::sa").Name)]')).toEqual([false, false, true]);
    // Go field names only: Kyverno refuses the policy when it compiles.
    const r = compileExpression('parseServiceAccount(request.userInfo.username).namespace == "x"', 'variable', { params: false, dialect: 'kyverno' });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toContain("undefined field 'namespace'");
  });
});

describe('image library: registries', () => {
  it("a registry is what Go's url.Parse keeps whole as the host of //name (go-containerregistry checkRegistry)", () => {
    const ok = (ref: string) => value(`isImage("${ref}")`);
    // Kept whole by Go's parser: sub-delims, < > and non-ASCII letters, a last :port of digits.
    expect([ok('a<b.io/ab:1'), ok('é.io/ab'), ok('a:1:2/ab'), ok('h.io:/ab'), ok('[::1]:5000/ab'), ok('localhost:5000/ab:1')]).toEqual([true, true, true, true, true, true]);
    // Escapes, user info and a port that is no number are not.
    expect([ok('a%41.io/ab'), ok('u@h.io/ab'), ok('a:b/ab'), ok('[::1/ab')]).toEqual([false, false, false, false]);
    expect(value('image("é.io/ab:1").registry()')).toBe('é.io');
  });
});

describe("the dyn arguments of json.unmarshal and gzip.compress, converted to a Go string", () => {
  it("fail with cel-go's ConvertToNative text of the value's kind; an optional's value and an image() convert", () => {
    const err = (e: string) => run(e).error;
    expect(err('json.unmarshal(1)')).toContain("unsupported type conversion from 'int' to string");
    expect(err('gzip.compress(1u)')).toContain("unsupported type conversion from 'uint' to string");
    expect(err('json.unmarshal(1.5)')).toContain("type conversion error from Double to 'string'");
    expect(err('json.unmarshal(true)')).toContain("type conversion error from bool to 'string'");
    expect(err('json.unmarshal(b"{}")')).toContain("type conversion error from Bytes to 'string'");
    expect(err('json.unmarshal(["{}"])')).toContain("type conversion error from list to 'string'");
    expect(err('json.unmarshal({"a": "b"})')).toContain("type conversion error from map to 'string'");
    expect(err('json.unmarshal(null)')).toContain("type conversion error from 'null_type' to 'string'");
    expect(err('json.unmarshal(duration("1s"))')).toContain("type conversion error from 'Duration' to 'string'");
    expect(err('json.unmarshal(optional.none())')).toContain('optional.none() dereference');
    expect(value('json.unmarshal(optional.of("[1]"))')).toEqual([1]);
    expect(value('gzip.decompress(gzip.compress(image("nginx")))')).toBe('nginx');
  });
});

describe('json.unmarshal of deeply nested text', () => {
  it("fails with a clear message, never JavaScript's stack overflow", () => {
    const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);
    // Go's decoder takes 10,000 levels; Amender's reader stops at 1,000 (every later walk recurses).
    expect(run('json.unmarshal(object.s)', { s: nested(10_000) }).error).toContain('JSON nesting deeper than 1000 levels');
    // Past Go's limit, Go's own syntax error.
    expect(run('json.unmarshal(object.s)', { s: nested(10_001) }).error).toContain("invalid character '[' exceeded max depth");
    expect(run('json.unmarshal(object.s)', { s: nested(200_000) }).error).toContain("invalid character '[' exceeded max depth");
  });
});
