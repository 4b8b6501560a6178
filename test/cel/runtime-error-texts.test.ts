/**
 * Runtime error texts of the standard library and the Kubernetes libraries, as kube-apiserver's cel-go
 * gives them (denial messages quote them). Arguments come from the object so that nothing folds at compile
 * time. Each group names the cel-go / Kubernetes source line of its texts.
 */
import { describe, expect, it } from 'vitest';
import { Evaluation, RUNTIME_CEL_COST_BUDGET, compileExpression, type AdmissionInput } from '../../src/cel/index.js';

const input: AdmissionInput = {
  object: { s: 'abc', m1: -1, n0: 0, n1: 1, n2: 2, n5: 5, f20: 1e20, min: -9223372036854775808n, t: '2020-01-01T00:00:00Z', e: '' } as never,
  oldObject: null,
  request: {
    operation: 'CREATE', name: 'x', namespace: 'n',
    kind: { group: '', version: 'v1', kind: 'Pod' }, resource: { group: '', version: 'v1', resource: 'pods' },
    userInfo: { username: 'a', groups: [] },
  },
};

function error(expr: string): string {
  const r = compileExpression(expr, 'variable', { params: false });
  if (!r.ok) throw new Error(r.message);
  const v = new Evaluation(input, { budget: RUNTIME_CEL_COST_BUDGET }).evaluate(r.compiled);
  if (v.ok) throw new Error(`${expr} evaluated to ${String(v.value)}`);
  return v.message.replace(/^expression '.*' resulted in error: /s, '');
}

function value(expr: string): unknown {
  const r = compileExpression(expr, 'variable', { params: false });
  if (!r.ok) throw new Error(r.message);
  const v = new Evaluation(input, { budget: RUNTIME_CEL_COST_BUDGET }).evaluate(r.compiled);
  if (!v.ok) throw new Error(v.message);
  return v.value;
}

const cases = (rows: [string, string][]) => it.each(rows)('%s', (expr, text) => expect(error(expr)).toBe(text));

describe('time zone arguments (common/types/timestamp.go timeZone; Go time.LoadLocation, strconv.Atoi)', () => {
  // timestamp.go: `loc, err := time.LoadLocation(val); ... return WrapErr(err)`: Go's "unknown time zone " + name, unquoted.
  cases([
    ["timestamp(object.t).getHours('Bad/Zone')", 'unknown time zone Bad/Zone'],
    ["timestamp(object.t).getHours('Z')", 'unknown time zone Z'],
    ["timestamp(object.t).getHours('america/new_york')", 'unknown time zone america/new_york'],
    // LoadLocation: containsDotDot(name) || name[0] == '/' || name[0] == '\\' → errLocation.
    ["timestamp(object.t).getHours('../etc')", 'time: invalid location name'],
    ["timestamp(object.t).getHours('/etc/x')", 'time: invalid location name'],
    // timestamp.go: `hr, err := strconv.Atoi(string(val[0:ind])); if err != nil { return WrapErr(err) }`.
    ["timestamp(object.t).getHours('a:b')", 'strconv.Atoi: parsing "a": invalid syntax'],
    ["timestamp(object.t).getHours(':00')", 'strconv.Atoi: parsing "": invalid syntax'],
    ["timestamp(object.t).getHours('+01:x')", 'strconv.Atoi: parsing "x": invalid syntax'],
    ["timestamp(object.t).getHours('+99999999999999999999:00')", 'strconv.Atoi: parsing "+99999999999999999999": value out of range'],
    // cel-go#1336: "timezone offset minutes out of range [0, 59]: %s".
    ["timestamp(object.t).getHours('+01:60')", 'timezone offset minutes out of range [0, 59]: +01:60'],
    ["timestamp(object.t).getMinutes('+01:-5')", 'timezone offset minutes out of range [0, 59]: +01:-5'],
  ]);
  it('takes what Atoi takes, and LoadLocation\'s UTC names', () => {
    expect(value("timestamp(object.t).getHours('+1:5')")).toBe(1n);
    expect(value("timestamp(object.t).getMinutes('+01:+5')")).toBe(5n);
    expect(value("timestamp(object.t).getHours('-0:30')")).toBe(23n);
    expect(value("timestamp(object.t).getHours('-05:30')")).toBe(18n);
    expect(value("timestamp(object.t).getHours('')")).toBe(0n);
    expect(value("timestamp(object.t).getHours('UTC')")).toBe(0n);
    expect(value("timestamp(object.t).getHours('America/New_York')")).toBe(19n);
  });
});

describe('conversions (common/types/string.go:136, double.go:129/135 WrapErr(doubleToInt64Checked), int.go, bytes.go:106)', () => {
  cases([
    ['int(object.s)', "type conversion error from 'string' to 'int'"],
    ["int('9223372036854775808' + object.e)", "type conversion error from 'string' to 'int'"],
    ['uint(object.s)', "type conversion error from 'string' to 'uint'"],
    ["uint('-1' + object.e)", "type conversion error from 'string' to 'uint'"],
    ['double(object.s)', "type conversion error from 'string' to 'double'"],
    ['bool(object.s)', "type conversion error from 'string' to 'bool'"],
    ["timestamp('bad' + object.e)", "type conversion error from 'string' to 'google.protobuf.Timestamp'"],
    ["duration('1x' + object.e)", "type conversion error from 'string' to 'google.protobuf.Duration'"],
    // string.go:127 celErrTimestampOverflow for a parsed year outside 1..9999.
    ["timestamp('0000-01-01T00:00:00Z' + object.e)", 'timestamp overflow'],
    // overflow.go errIntOverflow / errUintOverflow.
    ['int(double(object.f20))', 'integer overflow'],
    ['uint(object.m1)', 'unsigned integer overflow'],
    ['uint(double(object.m1))', 'unsigned integer overflow'],
    ['int(18446744073709551615u + uint(object.n0))', 'integer overflow'],
  ]);
});

describe('arithmetic (common/types/overflow.go errDivideByZero, errModulusByZero, errIntOverflow, errUintOverflow, errTimestampOverflow)', () => {
  cases([
    ['object.n1 / object.n0', 'division by zero'],
    ['object.n1 % object.n0', 'modulus by zero'],
    ['uint(object.n1) / uint(object.n0)', 'division by zero'],
    ['9223372036854775807 + object.n1', 'integer overflow'],
    ['-object.min', 'integer overflow'],
    ['object.min / -1', 'integer overflow'],
    ['object.min % -1', 'integer overflow'],
    ['uint(object.n0) - 1u', 'unsigned integer overflow'],
    ["timestamp('9999-12-31T23:59:59Z' + object.e) + duration('1s')", 'timestamp overflow'],
    ["timestamp(object.t) - timestamp('0001-01-01T00:00:00Z' + object.e)", 'integer overflow'],
  ]);
});

describe('index and key errors (common/types/list.go:561, map.go:288 "no such key: %v")', () => {
  cases([
    ['[1][object.n5]', 'index out of bounds: 5'],
    ['[1][object.m1]', 'index out of bounds: -1'],
    ["dyn([1])['a']", "unsupported index type 'string' in list"],
    ["{'a':1}[object.s]", 'no such key: abc'],
    // A double key prints as Go's %v prints a float64 (strconv 'g'), not as JavaScript does.
    ['{1: 1}[object.f20]', 'no such key: 1e+20'],
    ['{1: 1}[-object.f20]', 'no such key: -1e+20'],
  ]);
});

describe('strings extension (ext/strings.go:564, 584, 679-694, 740)', () => {
  cases([
    ['object.s.charAt(object.n5)', 'index out of range: 5'],
    ['object.s.substring(object.n5)', 'index out of range: 5'],
    ['object.s.substring(object.n2, object.n1)', 'invalid substring range. start: 2, end: 1'],
    ['object.s.substring(object.n1, object.n5)', 'index out of range: 5'],
    ["object.s.indexOf('a', object.m1)", 'index out of range: -1'],
    ["[object.s, dyn(1)].join()", 'join: invalid input: 1'],
  ]);
});

describe('regexes (common/types/string.go:158 the regexp error; apiserver library/regex.go:108 "Illegal regex: %v")', () => {
  cases([
    ["object.s.matches('[' + object.e)", 'error parsing regexp: missing closing ]: `[`'],
    ["object.s.find('[' + object.e)", 'Illegal regex: error parsing regexp: missing closing ]: `[`'],
  ]);
});

describe('lists (ext/lists.go:427-433; apiserver library/lists.go:323)', () => {
  cases([
    ['[1,2].slice(object.n2, object.n1)', 'cannot slice(2, 1), start index must be less than or equal to end index'],
    ['[1,2].slice(object.m1, object.n1)', 'cannot slice(-1, 1), negative indexes not supported'],
    ['[1,2].slice(object.n0, object.n5)', 'cannot slice(0, 5), list is length 2'],
    ['[object.n1].filter(x, x > 5).max()', 'max called on empty list'],
  ]);
});

describe('Kubernetes libraries (apiserver library/ip.go:323-331, cidr.go:182+284 (the prefix is doubled), quantity.go:227/257, semverlib.go:334)', () => {
  cases([
    ['ip(object.s)', 'IP Address "abc" parse error during conversion from string: ParseAddr("abc"): unable to parse IP'],
    ["ip('::1%eth0' + object.e)", 'IP address "::1%eth0" with zone value is not allowed'],
    ["ip('::ffff:1.2.3.4' + object.e)", 'IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed'],
    ['cidr(object.s)', 'network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("abc"): no \'/\''],
    ['quantity(object.s)', "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    ["quantity('1E100' + object.e).asInteger()", 'cannot convert value to integer'],
    ['semver(object.s)', 'No Major.Minor.Patch elements found'],
    ["semver('1.2-alpha' + object.e, true)", 'short version cannot contain PreRelease/Build meta data'],
    ["url('' + object.e)", 'URL parse error during conversion from string: parse "": empty url'],
  ]);
});
