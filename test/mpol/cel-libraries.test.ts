/**
 * The CEL libraries of Kyverno's CEL policies (src/cel's package face, dialect `kyverno`): each library's
 * functions with Kyverno's results, their cost charged to the budget, the review's size bound honoured,
 * and none of them in the Kubernetes environment MutatingAdmissionPolicies get.
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { compileExpression, Evaluation, type CelValue } from '../../src/cel/index.js';
import { ReviewAborted, ReviewGuard } from '../../src/guard/index.js';

function run(expression: string, object: unknown = {}, guard?: ReviewGuard): { value?: CelValue; error?: string; cost?: number } {
  const r = compileExpression(expression, 'variable', { params: false, dialect: 'kyverno' });
  if (!r.ok) return { error: r.message };
  const out = new Evaluation({ object: object as never }, { budget: 10_000_000, ...(guard ? { guard } : {}) }).evaluate(r.compiled);
  return out.ok ? { value: out.value, cost: out.cost } : { error: out.message, cost: out.cost };
}

const value = (e: string, object?: unknown) => {
  const r = run(e, object);
  if (r.error) throw new Error(r.error);
  return r.value;
};

describe("Kyverno's CEL libraries", () => {
  it('regex: replace with groups, extract, extractAll (cel-go ext.Regex)', () => {
    expect(value(String.raw`regex.replace("registry.io/app:1.2", "^([^/]+)/(.*)$", "mirror.local/\\2")`)).toBe('mirror.local/app:1.2');
    expect(value(String.raw`regex.replace("a-b-c", "-", "+", 1)`)).toBe('a+b-c');
    // Go's successive matches: an empty match right after a match is not one.
    expect(value(String.raw`regex.replace("abc", "x*", "-")`)).toBe('-a-b-c-');
    expect(value(String.raw`regex.extractAll("a,b,,c", "[^,]*")`)).toEqual(['a', 'b', '', 'c']);
    expect(value(String.raw`regex.extract("tag:v1.2.3", "v([0-9]+)").value()`)).toBe('1');
    expect(value(String.raw`regex.extract("none", "[0-9]+").hasValue()`)).toBe(false);
    expect(value(String.raw`regex.extractAll("a1b22c333", "[0-9]+")`)).toEqual(['1', '22', '333']);
    expect(run(String.raw`regex.extract("ab", "(a)(b)")`).error).toContain('more than one capturing group');
    expect(run(String.raw`regex.replace("ab", "(a)", "\\2")`).error).toContain('replacement string references group 2 but regex has only 1 group(s)');
  });

  it('user: parseServiceAccount splits a service account user name (kyverno/sdk user impl_test.go cases)', () => {
    const sa = (u: string) => value(`[parseServiceAccount("${u}").Namespace, user.parseServiceAccount("${u}").Name]`);
    expect(sa('system:serviceaccount:foo:bar')).toEqual(['foo', 'bar']);
    expect(sa('system:serviceaccount:foo:bar:baz')).toEqual(['foo', 'bar:baz']);
    expect(sa('something-else:123')).toEqual(['', '']);
    expect(run('parseServiceAccount(true)').error).toContain("found no matching overload for 'parseServiceAccount'");
    expect(compileExpression('parseServiceAccount("x")', 'variable', { params: false }).ok).toBe(false);
  });

  it('user: the result is the Go struct user.ServiceAccount (cel-go ext.NativeTypes nativeObj)', () => {
    const sa = 'parseServiceAccount("system:serviceaccount:a:b")';
    // type() names the struct; it equals only another such struct (nativeObj.Equal: reflect.DeepEqual).
    expect(value(`type(${sa}) == user.ServiceAccount`)).toBe(true);
    expect(value('dyn(parseServiceAccount("x")) == {}')).toBe(false);
    expect(value(`${sa} == user.ServiceAccount{Namespace: "a", Name: "b"}`)).toBe(true);
    // Every field is there with Go's zero value; has() is IsSet (not zero).
    expect(value('[user.ServiceAccount{}.Name, string(dyn(parseServiceAccount("x")).Namespace)]')).toEqual(['', '']);
    expect(value('[has(user.ServiceAccount{Name: ""}.Name), user.ServiceAccount{Name: ""} == user.ServiceAccount{}]')).toEqual([false, true]);
    expect(run('dyn(parseServiceAccount("x")).namespace').error).toContain('no such field: namespace');
    // json.marshal writes the Go struct with its json tags (name,omitempty; namespace,omitempty); in a
    // list cel-go cannot convert it to Go's any.
    expect(value(`json.marshal(${sa})`)).toBe('{"name":"b","namespace":"a"}');
    expect(value('json.marshal(parseServiceAccount("x"))')).toBe('{}');
    expect(run(`json.marshal([${sa}])`).error).toContain("type conversion error from 'user.ServiceAccount' to 'interface {}'");
  });

  it('image(): go-containerregistry references', () => {
    expect(value('[image("nginx").registry(), image("nginx").repository(), image("nginx").tag(), image("nginx").identifier()]')).toEqual([
      'index.docker.io',
      'library/nginx',
      'latest',
      'latest',
    ]);
    const digest = `sha256:${'a'.repeat(64)}`;
    expect(value(`[image("ghcr.io/org/app:1.0@${digest}").digest(), image("ghcr.io/org/app:1.0@${digest}").tag(), string(image("localhost/xy:2").containsDigest()), image("localhost/xy:2").registry()]`)).toEqual([digest, '', 'false', 'localhost']);
    // go-containerregistry v0.21.9 (Kyverno's go.mod) asks for 2 to 255 characters in a repository.
    expect(value('[isImage("a"), isImage("ab"), isImage("ghcr.io/x:1"), isImage("ghcr.io/xy:1"), isImage("docker.io/a")]')).toEqual([false, true, false, true, false]);
    expect(run('image("ghcr.io/x:1")').error).toContain('could not parse reference: ghcr.io/x:1');
    expect(value('parseImageReference("docker.io/bitnami/redis:7").repository()')).toBe('bitnami/redis');
    expect(value('[isImage("nginx:1.25"), isImage("Not An Image")]')).toEqual([true, false]);
    expect(run('image("UPPER/case")').error).toContain('could not parse reference: UPPER/case');
  });

  it('image(): == with a value that is no image is an error, as the sdk\'s Image.Equal answers it (MaybeNoSuchOverloadErr)', () => {
    expect(run('dyn(image("nginx")) == "nginx"').error).toContain('no such overload');
    expect(run('dyn(image("nginx")) == 1').error).toContain('no such overload');
    // Images compare as their references (reflect.DeepEqual, the text as written included); null is unequal;
    // != and `in` read the error as unequal (cel-go evalNe, baseList.Contains); a string on the left is unequal.
    expect(value('[image("nginx") == image("nginx"), image("nginx") == image("nginx:latest"), dyn(image("nginx")) == null]')).toEqual([true, false, false]);
    expect(value('[dyn(image("nginx")) != "nginx", dyn(image("nginx")) in ["nginx"], "nginx" == dyn(image("nginx"))]')).toEqual([true, false, false]);
  });

  it('exceptions: the Go struct libs.Exception Kyverno binds (ext.NativeTypes, cel tags), empty as no PolicyException is read', () => {
    expect(value('[type(exceptions) == libs.Exception, has(exceptions.allowedImages), size(exceptions.allowedValues) == 0]')).toEqual([true, true, true]);
    // Go's reflect.DeepEqual: two empty slices are equal, a nil one (an unset field) is not; no map equals it.
    expect(value('[exceptions == libs.Exception{allowedImages: [], allowedValues: []}, exceptions == libs.Exception{}, dyn(exceptions) == {"allowedImages": [], "allowedValues": []}]')).toEqual([true, false, false]);
    expect(value('[has(libs.Exception{}.allowedImages), size(libs.Exception{}.allowedImages) == 0]')).toEqual([false, true]);
    // encoding/json writes the Go field names (the struct has no json tags); a nil slice is null.
    expect(value('json.marshal(exceptions)')).toBe('{"AllowedImages":[],"AllowedValues":[]}');
    expect(value('json.marshal(libs.Exception{})')).toBe('{"AllowedImages":null,"AllowedValues":null}');
  });

  it("image(): type() fails, as the sdk's Image.ConvertToType converts to kyverno.image only (cel-go's type() asks for TypeType)", () => {
    expect(run('type(image("nginx"))').error).toContain("type conversion error from 'kyverno.image' to 'type'");
    expect(run('[image("nginx")].exists(i, type(i) == string)').error).toContain("type conversion error from 'kyverno.image' to 'type'");
  });

  it('json, yaml: Go decoding (numbers are doubles) and encoding (sorted keys, HTML escaped)', () => {
    expect(value(`json.marshal({"b": dyn([dyn(1), dyn(2.5)]), "a": dyn("<x>")})`)).toBe('{"a":"\\u003cx\\u003e","b":[1,2.5]}');
    expect(value(`json.unmarshal('{"n": 3, "l": [true, null]}')`)).toEqual(new Map<string, unknown>([['n', 3], ['l', [true, null]]]));
    expect(value(`type(json.unmarshal('{"n": 3}').n) == double`)).toBe(true);
    expect(value(`yaml.parse("on: yes\\nnum: 010\\nn: 1")`)).toEqual(new Map<string, unknown>([["true", true], ["num", 8], ["false", 1]]));
    expect(run(`json.unmarshal("{")`).error).toBeDefined();
  });

  it("yaml.parse reads the first document of a stream and leaves the rest unread, as go-yaml v2's Unmarshal", () => {
    expect(value('yaml.parse("a: 1\\n---\\nb: 2")')).toEqual(new Map([['a', 1]]));
    // The second document is never parsed, so its syntax error is none.
    expect(value('yaml.parse("a: 1\\n---\\nb: [")')).toEqual(new Map([['a', 1]]));
    expect(value('yaml.parse("---\\n---\\nb: 2")')).toBeNull();
    expect(value('yaml.parse("---\\n- x\\n...\\n")')).toEqual(['x']);
    expect(run('yaml.parse("a: [1\\n---\\nb: 2")').error).toBeDefined();
  });

  it("json.unmarshal fails as Go's encoding/json does (its decode_test.go syntax errors, a number past float64)", () => {
    const cases: [string, string][] = [
      ['{"X": "foo", "Y"}', "invalid character '}' after object key"],
      ['[1, 2, 3+]', "invalid character '+' after array element"],
      ['{"X":12x}', "invalid character 'x' after object key:value pair"],
      ['\u0001 42', "invalid character '\\x01' looking for beginning of value"],
      [' 42 \u0001', "invalid character '\\x01' after top-level value"],
      ['{"F3": -}', "invalid character '}' in numeric literal"],
      ['[2, 3', 'unexpected end of JSON input'],
      ['', 'unexpected end of JSON input'],
      ['{"a":1}{', "invalid character '{' after top-level value"],
      ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
      ["'a'", "invalid character '\\'' looking for beginning of value"],
      ['"a\nb"', "invalid character '\\n' in string literal"],
      ['"\\q"', "invalid character 'q' in string escape code"],
      ['1.x', "invalid character 'x' after decimal point in numeric literal"],
      ['1ex', "invalid character 'x' in exponent of numeric literal"],
      ['trux', "invalid character 'x' in literal true (expecting 'e')"],
      // Go scans bytes: é is named by its first UTF-8 byte, 0xC3, as a Latin-1 character.
      ['\u00e9', "invalid character '\u00c3' looking for beginning of value"],
      ['[1, -2e999, 1e400]', 'json: cannot unmarshal number -2e999 into Go value of type float64'],
    ];
    for (const [text, message] of cases) {
      expect(run('json.unmarshal(object.s)', { s: text }).error, text).toMatch(new RegExp(`resulted in error: ${message.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')}$`));
    }
    expect(value('json.unmarshal("[1e-400]")')).toEqual([0]);
    // Kyverno declares the argument dyn: a policy passing another type compiles and fails when called.
    expect(run('json.unmarshal(1)').error).toContain("unsupported type conversion from 'int' to string");
  });

  it("json.unmarshal reads a surrogate escape that pairs with nothing as U+FFFD, in strings and keys, as Go's decoder (unquoteBytes)", () => {
    const text = String.raw`{"\udc00k": ["\ud800", "\ud800x", "\ud83d\ude00", "\ud800\ud800\udc00", "\udc00\ud800"]}`;
    const out = value('json.unmarshal(object.s)', { s: text }) as Map<string, unknown>;
    expect([...out.keys()]).toEqual(['\ufffdk']);
    expect(out.get('\ufffdk')).toEqual(['\ufffd', '\ufffdx', '\u{1F600}', '\ufffd\u{10000}', '\ufffd\ufffd']);
    expect(value('json.unmarshal(object.s) == "\\ufffd"', { s: '"\\ud800"' })).toBe(true);
  });

  it("json.marshal of an infinity or NaN fails with Go's UnsupportedValueError text (strconv.FormatFloat)", () => {
    expect(run('json.marshal({"a": 1.5e300 * 1e10})').error).toContain('json: unsupported value: +Inf');
    expect(run('json.marshal(-1.5e300 * 1e10)').error).toContain('json: unsupported value: -Inf');
    expect(run('json.marshal(0.0 / 0.0)').error).toContain('json: unsupported value: NaN');
  });

  it('json.marshal writes a timestamp as Go writes a time.Time and a duration as a time.Duration', () => {
    expect(value('json.marshal([timestamp("2024-01-01T00:00:00.5Z")])')).toBe('["2024-01-01T00:00:00.5Z"]');
    expect(value('json.marshal({"d": duration("1m30s")})')).toBe('{"d":90000000000}');
    expect(value('[json.marshal(optional.of("x")), json.marshal(optional.none())]')).toEqual(['"x"', 'null']);
  });

  it("json.marshal hands Go what cel-go's ConvertToNative gives (a CEL-built map's values converted to any)", () => {
    // A map inside a CEL-built map or list becomes a Go map[any]any, which encoding/json refuses.
    const unsupported = 'json: unsupported type: map[interface {}]interface {}';
    expect(run('json.marshal({"a": {"b": 1}})').error).toContain(unsupported);
    expect(run('json.marshal([{"a": 1}])').error).toContain(unsupported);
    expect(run('json.marshal({"m": object.metadata})', { metadata: { name: 'x' } }).error).toContain(unsupported);
    expect(run('json.marshal({"x": json.unmarshal("{}")})').error).toContain(unsupported);
    // A Go map[string]any (the object, a decoded document) goes as it is, nested maps included.
    expect(value('json.marshal(object.metadata)', { metadata: { labels: { a: 'b' } } })).toBe('{"labels":{"a":"b"}}');
    expect(value('json.marshal(json.unmarshal("{\\"a\\":{\\"b\\":null}}"))')).toBe('{"a":{"b":null}}');
    expect(value('json.marshal({"a": dyn([1, 2]), "b": dyn(optional.of("x"))})')).toBe('{"a":[1,2],"b":"x"}');
    expect(run('json.marshal({"a": optional.none()})').error).toContain('optional.none() dereference');
    // A CEL null is structpb.NullValue there, an int32 enum: 0.
    expect(value('[json.marshal(null), json.marshal({"a": null}), json.marshal(optional.of(null))]')).toEqual(['0', '{"a":0}', '0']);
    // A key is converted to a Go string with cel-go's text.
    expect(run('json.marshal({1: "a"})').error).toContain("unsupported type conversion from 'int' to string");
  });

  it("json.marshal writes numbers, strings and key order as Go's encoding/json (src/go)", () => {
    expect(value('json.marshal([1e-7, 1e21, -0.0, 123456789.0])')).toBe('[1e-7,1e+21,-0,123456789]');
    // Go sorts keys by bytes: an astral character after U+FFFD; JavaScript's < would put it first.
    expect(value('json.marshal({"\\U0001F600": 1, "\\uFFFD": 2})')).toBe('{"\uFFFD":2,"\u{1F600}":1}');
  });

  it('time, math, hash, transform', () => {
    expect(value(`time.toCron(timestamp("2024-05-06T07:08:09Z"))`)).toBe('8 7 6 5 1');
    expect(value(`time.truncate(timestamp("2024-05-06T07:08:09Z"), duration("1h"))`)).toEqual(value(`timestamp("2024-05-06T07:00:00Z")`));
    expect(value(`time.now() > timestamp("2024-01-01T00:00:00Z")`)).toBe(true);
    expect(value(`[math.round(2.345, 2), math.round(-2.5, 0)]`)).toEqual([2.35, -3]);
    expect(value(`[sha256("abc"), hash.md5("abc"), sha1("abc")]`)).toEqual([
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
      '900150983cd24fb0d6963f7d28e17f72',
      'a9993e364706816aba3e25717850c26c9cd0d89d',
    ]);
    expect(value(`listObjToMap([{"n": "a"}, {"n": "b"}], [{"v": 1}, {"v": 2}], "n", "v")`)).toEqual(new Map<string, unknown>([['a', 1n], ['b', 2n]]));
    expect(run(`transform.listObjToMap([{"n": "a"}], [], "n", "v")`).error).toContain('listObjToMap must take lists of equal length');
  });

  it('transform: an entry map with a key that is no string fails, as Kyverno converts each entry to a Go map[string]any (impl.go refValMapToGoMap)', () => {
    // The key list: refValMapToGoMap's own text, naming the key's type.
    expect(run(`listObjToMap([{1: "a"}], [{"v": 1}], "n", "v")`).error).toContain('failed to convert key to a string, int');
    expect(run(`listObjToMap([{true: "a"}], [{"v": 1}], "n", "v")`).error).toContain('failed to convert key to a string, bool');
    // The value list: the value list's text, not a null value for the missing field (Amender gave {"a": null}).
    expect(run(`listObjToMap([{"n": "a"}], [{1: 1}], "n", "v")`).error).toContain('object cannot be handled as a map string to any in the value object list');
    // Maps from the object have string keys only.
    expect(value(`listObjToMap(object.keys, object.values, "n", "v")`, { keys: [{ n: 'a' }], values: [{ w: 1 }] })).toEqual(new Map([['a', null]]));
  });

  it("gzip: decompress reads Go's gzip (concatenated members, Go's error texts); compress writes gzip that reads back", () => {
    // printf 'hello' | gzip | base64 (gzip 1.12), and two members one after the other.
    expect(value('gzip.decompress(base64.decode("H4sIAAAAAAAAA8tIzcnJBwCGphA2BQAAAA=="))')).toBe('hello');
    expect(value('gzip.decompress(base64.decode("H4sIAAAAAAAAA8tIzcnJBwCGphA2BQAAAA==") + base64.decode("H4sIAAAAAAAAAyvPL8pJAQBDEXc6BQAAAA=="))')).toBe('helloworld');
    // Past one stored block (65,535 bytes), with a character of two UTF-8 bytes.
    const long = `h\u00e9llo ${'x'.repeat(70000)}`;
    expect(value('gzip.decompress(gzip.compress(object.s))', { s: long })).toBe(long);
    expect(value('type(gzip.compress("a")) == bytes')).toBe(true);
    expect(run('gzip.decompress(b"")').error).toContain(': EOF');
    expect(run('gzip.decompress(b"\\x1f\\x8b\\x08")').error).toContain('unexpected EOF');
    expect(run('gzip.decompress(b"not gzip at all")').error).toContain('gzip: invalid header');
    // The CRC-32 of the trailer changed (last byte of the checksum).
    expect(run('gzip.decompress(base64.decode("H4sIAAAAAAAAA8tIzcnJBwCGphA3BQAAAA=="))').error).toContain('gzip: invalid checksum');
    // Block type 3 (reserved) in the first deflate byte: Go's decompressor has read one byte.
    expect(run('gzip.decompress(b"\\x1f\\x8b\\x08\\x00\\x00\\x00\\x00\\x00\\x00\\xff\\x07")').error).toContain('flate: corrupt input before offset 1');
    // Trailing bytes that are no gzip member.
    expect(run('gzip.decompress(gzip.compress("a") + b"xx")').error).toContain('unexpected EOF');
    expect(run('gzip.decompress(gzip.compress("a") + b"0123456789")').error).toContain('gzip: invalid header');
    expect(run('gzip.compress(1)').error).toContain("unsupported type conversion from 'int' to string");
    expect(compileExpression('gzip.decompress(b"")', 'variable', { params: false }).ok).toBe(false);
  });

  it('gzip: a small input that inflates past the review size bound stops there, before the text is built', () => {
    // 4 MiB of zeros, gzip -9: 4,104 bytes (base64 here).
    const bomb = btoa(String.fromCharCode(...gzipSync(new Uint8Array(4 << 20), { level: 9 })));
    const guard = new ReviewGuard({ deadlineMs: 60_000, maxValueBytes: 100_000 });
    expect(() => run('size(gzip.decompress(base64.decode(object.b)))', { b: bomb }, guard)).toThrow(ReviewAborted);
    expect(value('size(gzip.decompress(base64.decode(object.b)))', { b: bomb })).toBe(BigInt(4 << 20));
  });

  it('random: a result past the review size bound stops there as it is built; the cost grows with what it writes', () => {
    // Go's syntax refuses nested repetitions past 1000 in all: 200 repetitions of 1000 one after the other.
    const p = 'a{1000}'.repeat(200);
    const guard = new ReviewGuard({ deadlineMs: 60_000, maxValueBytes: 100_000 });
    expect(() => run('size(random(object.p))', { p }, guard)).toThrow(ReviewAborted);
    expect(value('size(random(object.p))', { p })).toBe(200_000n);
    expect(run('random("(a{1000}){2}")').error).toContain('error parsing regexp: invalid repeat count: `{2}`');
    expect(run('random("a{1000}")').cost!).toBeGreaterThan(run('random("a")').cost! + 90);
    expect(run('random(1)').error).toContain("found no matching overload for 'random'");
  });

  it("x509.decode: kyverno/sdk x509 impl_test.go Test_decode (its certificate, the fields it asserts; an invalid PEM)", () => {
    const cert = `-----BEGIN CERTIFICATE-----
MIIC7TCCAdWgAwIBAgIBADANBgkqhkiG9w0BAQsFADAYMRYwFAYDVQQDDA0qLmt5
dmVybm8uc3ZjMB4XDTIyMTAxMDExNDYzMloXDTIzMTAxMDEyNDYzMlowGDEWMBQG
A1UEAwwNKi5reXZlcm5vLnN2YzCCASIwDQYJKoZIhvcNAQEBBQADggEPADCCAQoC
ggEBAOKF+2P0Ufp855hpdsGD4lYkd6oU7HZAOWm1XskAMwrdsqWwTNNAinyHRoPQ
IbNbGDQ+r6Cggc2mlxHJ90PnC2weHj5otaD17Z+ARZpJZ4HMWkEfFt8sxwo9vuQJ
RWihqNwFheowjswoSB1DHnPufrZHfztkMoRx278ZfHaIMdlSTg50ektkNDoHA3OJ
sxxw54X3HR1iq6SZwN8xNT0TI6B6BbfAYWMNmKCiZ2iV6kW//XnTEqGd2WcmhuP0
SjwO4tCJbj9oV6+Bj/uhFr7J4foErMaodYDBtQs/ul2tcAwSBHfnC2KcLbiZTZsC
0Rs0WPJ4YwF/cOsD7Z/RmLs4FHsCAwEAAaNCMEAwDgYDVR0PAQH/BAQDAgKkMA8G
A1UdEwEB/wQFMAMBAf8wHQYDVR0OBBYEFJaK+3Wfnf7rVkYBzMCLSaV56NMqMA0G
CSqGSIb3DQEBCwUAA4IBAQDY7F6b+t9BX7098JyGk6zeT39MoLdSv+8IaKXn+m8G
yOKn3CZkruko57ycvPd4taC0gggtmUYynFhwPMQr+boNrrK9rat8Jw3yPPsBq/8D
/s6tvwxSNXBfPUI5OvNIB/hA5XpJpdHQaCkYm+FWkcJsolkkbSOfVjUjImW26JHB
nnPPtR4Y7dx0SVoPS19IC0T5RmdvgqlXj4XbhTnX3QOujVHn8u+wQ8po7EngHDQs
+onfkp8ipe0QpEJL1ZdW2LhyDXGKrZ2y8UPZ9wYNzxHWaj1Thu4B9YFdsPUwWqSx
n9e+FygpoktlD8YgT7jwgiVKX7Koz++zyvMIdhvRrtgS
-----END CERTIFICATE-----`;
    const got = value('x509.decode(object.c)', { c: cert }) as Map<string, unknown>;
    const issuer = got.get('Issuer') as Map<string, unknown>;
    const publicKey = got.get('PublicKey') as Map<string, unknown>;
    const extensions = got.get('Extensions') as Map<string, unknown>[];
    expect([got.get('IsCA'), got.get('BasicConstraintsValid'), got.get('KeyUsage'), got.get('SerialNumber'), got.get('PublicKeyAlgorithm')]).toEqual([true, true, 37, 0, 1]);
    expect([got.get('MaxPathLen'), got.get('MaxPathLenZero'), got.get('NotBefore'), got.get('NotAfter')]).toEqual([-1, false, '2022-10-10T11:46:32Z', '2023-10-10T12:46:32Z']);
    expect([issuer.get('CommonName'), issuer.get('SerialNumber'), publicKey.get('E')]).toEqual(['*.kyverno.svc', '', 65537]);
    expect(publicKey.get('N')).toBe(
      '28595925905962223424520947352207105451744616797088171943239289907331901888529856098458304611629660120574607501039902142361333982065793213267074854658525100799280158707840279479550961169213763526857247298653141711003931642606662052674943191476488665842309583311097351331994267413776792462637192775240062778036062353517979538994974045127175206597906751521558536719043095219698535279694800624795673809356898452438518041024126624051887044932164506019573725987204208750674129677584956156611454245004918943771571492757639432459688931855526941886354880727024912384140238027697348634609952850513122734230521040730560514233467',
    );
    expect([extensions.length, extensions[0].get('Critical')]).toEqual([3, true]);
    for (const f of ['Raw', 'RawIssuer', 'RawSubject', 'RawSubjectPublicKeyInfo', 'RawTBSCertificate', 'Signature']) expect(typeof got.get(f), f).toBe('string');
    expect(run('x509.decode("not a valid PEM")').error).toContain('failed to decode PEM block');
  });

  it('charges cost by input size, as the cel-go and Kyverno trackers do', () => {
    const small = run(String.raw`regex.replace(object.s, "a", "b")`, { s: 'a'.repeat(10) }).cost!;
    const large = run(String.raw`regex.replace(object.s, "a", "b")`, { s: 'a'.repeat(10_000) }).cost!;
    expect(large).toBeGreaterThan(small + 1000);
    const hashSmall = run('sha256(object.s)', { s: 'x' }).cost!;
    const hashLarge = run('sha256(object.s)', { s: 'x'.repeat(10_000) }).cost!;
    expect(hashLarge).toBeGreaterThan(hashSmall + 500);
  });

  it('stops at the review size bound instead of building an oversized value', () => {
    const guard = new ReviewGuard({ deadlineMs: 60_000, maxValueBytes: 1000 });
    expect(() => run(String.raw`regex.replace(object.s, "a", "aaaaaaaaaa")`, { s: 'a'.repeat(500) }, guard)).toThrow(ReviewAborted);
    const guard2 = new ReviewGuard({ deadlineMs: 60_000, maxValueBytes: 1000 });
    expect(() => run('json.marshal(object.l)', { l: Array.from({ length: 300 }, (_, i) => `item-${i}`) }, guard2)).toThrow(ReviewAborted);
  });

  it('regex: a pattern matching at every character of a large string lets the deadline in during the call', () => {
    // 'a' over 100,000 a's is 100,000 matches, found one by one: the matches are walked lazily and the
    // guard ticked per match (Amender read them all into a list first, without looking at the clock: on a
    // 2.5 MB string 800 MB of heap and seconds past the review's deadline).
    const s = 'a'.repeat(100_000);
    for (const e of ['size(regex.extractAll(object.s, "a"))', 'size(regex.replace(object.s, "a", "b"))', 'size(regex.replace(object.s, "(a)", "\\\\1"))']) {
      let t = 0;
      const guard = new ReviewGuard({ deadlineMs: 10, maxValueBytes: 6 << 20, now: () => t++ });
      expect(() => run(e, { s }, guard), e).toThrow(/deadline exceeded/);
      expect(run(e, { s }, new ReviewGuard({ deadlineMs: 60_000, maxValueBytes: 6 << 20 })).value, e).toBe(100_000n);
    }
  });

  it('a call whose cost walks its arguments lets the deadline in: values that share subtrees are exponentially large trees', () => {
    // 2^22 leaves built by nesting [x].map(v, [v, v]) (at 2^40 the review never ended): listObjToMap and
    // indexOf price a call by walking their arguments (traversalCost), which did not look at the clock, and
    // the library cost's error handler swallowed the guard's stop when it came.
    let nested = "'a'";
    for (let i = 0; i < 22; i++) nested = `[${nested}].map(v${i}, [v${i}, v${i}])[0]`;
    for (const e of [`size(listObjToMap([{"k": "a"}], [{"v": ${nested}}], "k", "v"))`, `[dyn(${nested})].indexOf(dyn("x"))`]) {
      let t = 0;
      const guard = new ReviewGuard({ deadlineMs: 10, maxValueBytes: 6 << 20, now: () => t++ });
      expect(() => run(e, {}, guard), e.slice(0, 20)).toThrow(/deadline exceeded/);
    }
  });

  it("declare Kyverno's exceptions variable, always empty (no PolicyException is read)", () => {
    expect(value('[size(exceptions.allowedImages), size(exceptions.allowedValues)]')).toEqual([0n, 0n]);
    expect(compileExpression('exceptions', 'variable', { params: false }).ok).toBe(false);
  });

  it('are absent from the Kubernetes environment (MutatingAdmissionPolicy stays as the API server has it)', () => {
    for (const e of ['gzip.compress("a")', 'image("nginx")', 'regex.replace("a", "a", "b")', 'json.marshal(1)', 'sha256("a")', 'math.round(1.0, 1)', 'x509.decode("")']) {
      const r = compileExpression(e, 'variable', { params: false });
      expect(r.ok, e).toBe(false);
    }
  });
});
