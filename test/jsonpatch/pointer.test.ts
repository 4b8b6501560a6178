import { describe, expect, it } from 'vitest';
import {
  escapeToken,
  formatPointer,
  parseGoInt,
  parsePointer,
  parseRfcIndex,
  splitGoPath,
  unescapeToken,
} from '../../src/jsonpatch/index.js';

describe('JSON Pointer tokens (RFC 6901)', () => {
  it('escapes ~ and / in one pass', () => {
    expect(escapeToken('k8s.io/x~y')).toBe('k8s.io~1x~0y');
    expect(escapeToken('~1')).toBe('~01');
    expect(escapeToken('plain')).toBe('plain');
    expect(escapeToken('')).toBe('');
  });

  it('unescapes in one left-to-right pass, so ~01 is ~1, not /', () => {
    expect(unescapeToken('~01')).toBe('~1');
    expect(unescapeToken('a~1b~0c')).toBe('a/b~c');
    expect(unescapeToken('~~1')).toBe('~/');
    expect(unescapeToken('~2x~')).toBe('~2x~'); // the Go libraries leave other ~ alone
  });

  it('round-trips arbitrary keys', () => {
    for (const key of ['', '~', '/', '~0', '~1', '//~~', 'a/b~c/~1', '__proto__']) {
      expect(unescapeToken(escapeToken(key))).toBe(key);
    }
  });

  it('formats tokens and indices', () => {
    expect(formatPointer([])).toBe('');
    expect(formatPointer(['metadata', 'labels', 'app.kubernetes.io/name'])).toBe('/metadata/labels/app.kubernetes.io~1name');
    expect(formatPointer(['spec', 'containers', 0, ''])).toBe('/spec/containers/0/');
  });
});

describe('strict pointer parsing', () => {
  it('parses the root, empty keys and escapes', () => {
    expect(parsePointer('')).toEqual({ ok: true, tokens: [] });
    expect(parsePointer('/')).toEqual({ ok: true, tokens: [''] });
    expect(parsePointer('//a/')).toEqual({ ok: true, tokens: ['', 'a', ''] });
    expect(parsePointer('/a~1b/~0/~01')).toEqual({ ok: true, tokens: ['a/b', '~', '~1'] });
  });

  it('rejects a pointer without a leading slash and a stray ~', () => {
    expect(parsePointer('a/b')).toMatchObject({ ok: false, error: expect.stringContaining('start with "/"') });
    expect(parsePointer('/a~2')).toMatchObject({ ok: false, error: expect.stringContaining('"~" must be followed by "0" or "1"') });
    expect(parsePointer('/a~')).toMatchObject({ ok: false });
  });

  it('RFC array indices: plain decimals only', () => {
    expect(parseRfcIndex('0')).toBe(0);
    expect(parseRfcIndex('42')).toBe(42);
    for (const bad of ['', '-', '-1', '+1', '01', '1.0', '1e2', ' 1', 'x']) expect(parseRfcIndex(bad)).toBeUndefined();
    expect(parseRfcIndex('99999999999999999999999')).toBeGreaterThan(2 ** 32);
  });
});

describe('evanphx path reading', () => {
  it('drops the first piece, whatever it is', () => {
    expect(splitGoPath('/a/b')).toEqual(['a', 'b']);
    expect(splitGoPath('a/b')).toEqual(['b']);
    expect(splitGoPath('x/a/b')).toEqual(['a', 'b']);
    expect(splitGoPath('/')).toEqual(['']);
    expect(splitGoPath('')).toBeUndefined();
    expect(splitGoPath('abc')).toBeUndefined();
  });

  it('Go strconv.Atoi: sign, leading zeros, int64 range, Go error texts', () => {
    expect(parseGoInt('01')).toEqual({ ok: true, value: 1, text: '1' });
    expect(parseGoInt('+1')).toEqual({ ok: true, value: 1, text: '1' });
    expect(parseGoInt('-0')).toEqual({ ok: true, value: 0, text: '0' });
    expect(parseGoInt('-12')).toEqual({ ok: true, value: -12, text: '-12' });
    expect(parseGoInt('9223372036854775807')).toMatchObject({ ok: true, text: '9223372036854775807' });
    expect(parseGoInt('-9223372036854775808')).toMatchObject({ ok: true, text: '-9223372036854775808' });
    expect(parseGoInt('9223372036854775808')).toEqual({
      ok: false,
      error: 'strconv.Atoi: parsing "9223372036854775808": value out of range',
    });
    for (const bad of ['', '-', '+', '1.0', '1e2', ' 1', '0x1', '1_000', '-']) {
      expect(parseGoInt(bad)).toEqual({ ok: false, error: `strconv.Atoi: parsing ${JSON.stringify(bad)}: invalid syntax` });
    }
  });
});
