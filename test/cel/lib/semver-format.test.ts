import { describe, expect, it } from 'vitest';
import { CelOptional } from '../../../src/cel/index.js';
import { cel, celError } from './env.js';

describe('semver', () => {
  it('orders versions as blang/semver, ignoring build metadata', () => {
    const order = ['1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0'];
    for (let i = 1; i < order.length; i++) {
      expect(cel('semver(a).isLessThan(semver(b))', { a: order[i - 1], b: order[i] }), `${order[i - 1]} < ${order[i]}`).toBe(true);
    }
    expect(cel("semver('1.0.0+build.1') == semver('1.0.0+other')")).toBe(true);
    expect(cel("semver('2.0.0').compareTo(semver('10.0.0'))")).toBe(-1n);
    expect(cel("semver('1.2.3').minor()")).toBe(2n);
  });

  it('normalizes only when asked', () => {
    expect(cel("semver('v1.2', true) == semver('1.2.0')")).toBe(true);
    expect(cel("semver('01.002.0003', true).patch()")).toBe(3n);
    expect(celError("semver('1.2-beta', true)")).toBe('short version cannot contain PreRelease/Build meta data');
    expect(cel("isSemver('v1.0.0')")).toBe(false);
  });

  it('reports blang/semver errors', () => {
    expect(celError("semver('')")).toBe('Version string empty');
    expect(celError("semver('1.2')")).toBe('No Major.Minor.Patch elements found');
    expect(celError("semver('a.2.3')")).toBe('Invalid character(s) found in major number "a"');
    expect(celError("semver('1.02.3')")).toBe('Minor number must not contain leading zeroes "02"');
    expect(celError("semver('1..3')")).toBe('strconv.ParseUint: parsing "": invalid syntax');
    expect(celError("semver('1.2.3-')")).toBe('Prerelease is empty');
    expect(celError("semver('1.2.3-01')")).toBe('Numeric PreRelease version must not contain leading zeroes "01"');
    expect(celError("semver('1.2.3-a_b')")).toBe('Invalid character(s) found in prerelease "a_b"');
    expect(celError("semver('1.2.3+')")).toBe('Build meta data is empty');
    expect(celError("semver('99999999999999999999.0.0')")).toBe(
      'strconv.ParseUint: parsing "99999999999999999999": value out of range',
    );
  });
});

describe('format', () => {
  const validate = (fmt: string, s: string) => cel(`format.${fmt}().validate(s)`, { s });

  it('returns none for valid strings and the Kubernetes messages otherwise', () => {
    expect(validate('dns1123Label', 'a'.repeat(63))).toEqual(CelOptional.none());
    expect(validate('dns1123Label', 'a'.repeat(64))).toEqual(CelOptional.of(['must be no more than 63 characters']));
    expect(validate('dns1123Label', 'a.b')).toEqual(CelOptional.of(['must not contain dots']));
    expect(validate('dns1123Subdomain', 'Example.com')).toEqual(
      CelOptional.of([
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      ]),
    );
    expect(validate('qualifiedName', 'example.com/MyName')).toEqual(CelOptional.none());
    expect(validate('qualifiedName', '/x')).toEqual(CelOptional.of(['prefix part must be non-empty']));
    expect(((validate('qualifiedName', 'a/b/c') as CelOptional).value() as string[])[0]).toMatch(/^a valid label key must consist of/);
    expect(validate('labelValue', '')).toEqual(CelOptional.none());
  });

  it('has exactly the named formats of format.go', () => {
    // Kubernetes' ConstantFormats has no port name format: neither the function nor the name exists.
    expect(celError('format.portName()')).toMatch(/^undeclared reference to 'format'/);
    expect(cel("format.named('portName').hasValue()")).toBe(false);
    for (const name of ['dns1123Label', 'dns1123Subdomain', 'dns1035Label', 'qualifiedName', 'dns1123LabelPrefix',
      'dns1123SubdomainPrefix', 'dns1035LabelPrefix', 'labelValue', 'uri', 'uuid', 'byte', 'date', 'datetime']) {
      expect(cel(`format.named('${name}').hasValue()`), name).toBe(true);
    }
  });

  it('masks a trailing dash of prefixes the way apimachinery does', () => {
    expect(validate('dns1123LabelPrefix', 'abc-')).toEqual(CelOptional.none());
    expect(validate('dns1035LabelPrefix', 'a-')).toEqual(CelOptional.none());
  });

  it('validates uri, uuid, byte, date and datetime', () => {
    expect(validate('uri', 'https://example.com/x')).toEqual(CelOptional.none());
    expect(validate('uri', 'relative')).toEqual(CelOptional.of(['parse "relative": invalid URI for request']));
    expect(validate('uuid', '123E4567E89B12D3A456426614174000')).toEqual(CelOptional.none());
    expect(validate('uuid', 'nope')).toEqual(CelOptional.of(['does not match the UUID format']));
    expect(validate('byte', '')).toEqual(CelOptional.of(['invalid base64']));
    expect(validate('byte', 'aGk=')).toEqual(CelOptional.none());
    expect(validate('date', '2024-02-29')).toEqual(CelOptional.none());
    expect(validate('date', '2023-02-29')).toEqual(CelOptional.of(['invalid date']));
    expect(validate('datetime', '2024-02-29T23:59:59.123+02:00')).toEqual(CelOptional.none());
    expect(validate('datetime', '2024-02-29T24:00:00Z')).toEqual(CelOptional.of(['invalid datetime']));
  });

  it('format.named finds formats by name', () => {
    expect(cel("format.named('labelValue').hasValue()")).toBe(true);
    expect(cel("format.named('nope').hasValue()")).toBe(false);
    expect(cel("format.named('uuid').value().validate('x').hasValue()")).toBe(true);
  });
});

describe('jsonpatch.escapeKey', () => {
  it('escapes ~ before /, in one pass', () => {
    expect(cel("jsonpatch.escapeKey('k8s.io/x~y')")).toBe('k8s.io~1x~0y');
    expect(cel("jsonpatch.escapeKey('~1')")).toBe('~01');
    expect(cel("jsonpatch.escapeKey('')")).toBe('');
  });
});
