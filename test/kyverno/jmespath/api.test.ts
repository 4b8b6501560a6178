import { describe, expect, it } from 'vitest';
import {
  clearCompileCache,
  compile,
  COMPILE_CACHE_SIZE,
  evaluate,
  goJsonStringify,
  InvalidArityError,
  InvalidTypeError,
  JmesPathError,
  JmesPathSyntaxError,
  listFunctions,
  search,
  UnknownFunctionError,
} from '../../../src/kyverno/jmespath/index.js';

describe('compile', () => {
  it('returns the same compiled expression from the cache', () => {
    clearCompileCache();
    const a = compile('a.b');
    expect(compile('a.b')).toBe(a);
    expect(a.search({ a: { b: 1 } })).toBe(1);
  });
  it('drops entries unused for a whole cache generation, keeps recently used ones', () => {
    clearCompileCache();
    const first = compile('first');
    const kept = compile('kept');
    for (let i = 0; i < COMPILE_CACHE_SIZE; i++) {
      compile(`k${i}`);
      if (i % 100 === 0) expect(compile('kept')).toBe(kept);
    }
    expect(compile('kept')).toBe(kept);
    expect(compile('first')).not.toBe(first);
  });
  it('reports syntax errors with Go messages and the offset', () => {
    try {
      compile('foo.');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(JmesPathSyntaxError);
      const err = e as JmesPathSyntaxError;
      expect(err.kind).toBe('syntax');
      // go-jmespath parseDotRHS: p.syntaxError("Expected identifier, lbracket, or lbrace"), nothing appended
      expect(err.message).toBe('SyntaxError: Expected identifier, lbracket, or lbrace');
      expect(err.highlight()).toBe('foo.\n    ^');
    }
    expect(() => compile('$')).toThrow("SyntaxError: Unknown char: '$'");
    expect(() => compile('`{`')).toThrow(JmesPathSyntaxError);
    expect(() => compile("'abc")).toThrow("SyntaxError: Unclosed delimiter: '");
    expect(() => compile('foo[')).toThrow(JmesPathSyntaxError);
    expect(() => compile('"a"(b)')).toThrow("SyntaxError: Can't have quoted identifier as function Name.");
  });
  it('reads function arguments to the end as go-jmespath does, and quotes Go\'s decoding error', () => {
    // An unclosed call parses one more argument at the end (Parser.led, tLparen): an incomplete expression.
    expect(() => compile('abs(`1`')).toThrow(/^SyntaxError: Incomplete expression$/);
    expect(() => compile('not_null(a, b')).toThrow(/^SyntaxError: Incomplete expression$/);
    expect(() => compile('foo..bar')).toThrow(/^SyntaxError: Expected identifier, lbracket, or lbrace$/);
    // A quoted identifier is decoded by json.Unmarshal, whose error go-jmespath returns.
    expect(() => compile('"\\z"')).toThrow('invalid character \'z\' in string escape code');
    expect(() => compile('"\\u00"')).toThrow('invalid character \'"\' in \\u hexadecimal character escape');
  });
  it('caches syntax errors too', () => {
    let first: unknown;
    let second: unknown;
    try {
      compile('a[');
    } catch (e) {
      first = e;
    }
    try {
      compile('a[');
    } catch (e) {
      second = e;
    }
    expect(second).toBe(first);
  });
  it('turns deep nesting into an error, not a crash', () => {
    const deep = '('.repeat(20000) + 'a' + ')'.repeat(20000);
    const r = evaluate(deep, { a: 1 });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toBeInstanceOf(JmesPathError);
  });
  it('refuses a JSON literal holding a number past the double range, as Go does, at any depth', () => {
    // JSON.parse reads ±Infinity, which no JSON document can hold; go-jmespath's literal fails to unmarshal.
    for (const [literal, number] of [['1e400', '1e400'], ['[1, -1e999]', '-1e999'], ['{"a": {"b": ["x", 1e400]}}', '1e400'], [`{"1e999": ${'9'.repeat(400)}}`, '9'.repeat(400)]]) {
      expect(() => compile(`\`${literal}\``), literal).toThrow(JmesPathSyntaxError);
      expect(() => compile(`\`${literal}\``), literal).toThrow(`json: cannot unmarshal number ${number} into Go value of type float64`);
    }
    expect(search('`[1e308, 1e-400]`', null)).toEqual([1e308, 0]);
  });
  it('refuses a JSON literal nested deeper than the engines walk, as parse_json does', () => {
    const deep = (n: number) => '`' + '['.repeat(n) + ']'.repeat(n) + '`';
    expect(search(`length(${deep(1000)})`, null)).toBe(1);
    expect(() => compile(deep(1001))).toThrow('nests deeper than 1000 levels');
    expect(() => compile(deep(100_000))).toThrow(JmesPathSyntaxError);
  });
  it('parse_json refuses a number past the double range anywhere in the document', () => {
    for (const text of ['1e400', '[1e400]', '{"a": [-1e999]}']) {
      const r = evaluate(`parse_json('${text}')`, null);
      expect(r.ok, text).toBe(false);
      if (!r.ok) expect(r.error.message).toMatch(/json: cannot unmarshal number -?1e(400|999) into Go value of type float64/);
    }
  });
});

describe('function errors', () => {
  it('unknown function, raised when evaluated', () => {
    const r = evaluate('nope(@)', {});
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error).toBeInstanceOf(UnknownFunctionError);
      expect(r.error.message).toBe('unknown function: nope');
    }
    expect(evaluate('`false` && nope(@)', {})).toEqual({ ok: true, value: false });
  });
  it('arity and type errors use go-jmespath messages', () => {
    expect(() => search('abs(`1`, `2`)', {})).toThrow(InvalidArityError);
    expect(() => search('abs(`1`, `2`)', {})).toThrow('incorrect number of args');
    expect(() => search('not_null()', {})).toThrow('Invalid arity.');
    expect(() => search("abs('x')", {})).toThrow(InvalidTypeError);
    expect(() => search("abs('x')", {})).toThrow('Invalid type for: x, expected: []jmespath.JpType{"number"}');
    expect(() => search('length(`{"b": [1, 2], "a": null}`)', {})).not.toThrow();
    expect(() => search('length(`1.5`)', {})).toThrow('Invalid type for: 1.5, expected: []jmespath.JpType{"string", "array", "object"}');
    expect(() => search('sort(`[1, "a"]`)', {})).toThrow('Invalid type for: [1 a]');
    expect(() => search('keys(`[{"b": 1, "a": null}]`)', {})).toThrow('Invalid type for: [map[a:<nil> b:1]]');
  });
  it('an arithmetic operand that is neither number, quantity nor duration uses Kyverno\'s text', () => {
    // pkg/engine/jmespath/arithmetic.go parseArithemticOperand: formatError(genericError, operator, "invalid operand")
    for (const fn of ['add', 'subtract', 'multiply', 'divide', 'modulo']) {
      const r = evaluate(`${fn}('x', \`1\`)`, {});
      expect(r.ok ? r.value : r.error.message).toBe(`JMESPath function '${fn}': invalid operand`);
    }
    const r = evaluate("sum(['1', 'x'])", {});
    expect(r.ok ? r.value : r.error.message).toBe("JMESPath function 'sum': invalid operand");
  });
  it('a slice step of 0 is a runtime error', () => {
    const r = evaluate('[0:1:0]', [1, 2]);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toBe('Invalid slice, step cannot be 0');
  });
});

describe('go JSON encoding', () => {
  it('sorts keys, escapes HTML characters and writes numbers like Go', () => {
    expect(goJsonStringify({ b: 1, a: ['<&>', 1.5e-7, 1e21, 100, -0] })).toBe('{"a":["\\u003c\\u0026\\u003e",1.5e-7,1e+21,100,-0],"b":1}');
    expect(goJsonStringify('\u2028\b\u0001\ud800')).toBe('"\\u2028\\b\\u0001\\ufffd"');
    expect(search('to_string(@)', { z: null, y: true })).toBe('{"y":true,"z":null}');
  });
});

describe('listFunctions', () => {
  it('lists the 26 standard functions and the 51 Kyverno functions, whose sum replaces the standard one', () => {
    const names = listFunctions().map((f) => f.name);
    expect(names.length).toBe(26 + 51 - 1);
    for (const n of ['compare', 'x509_decode', 'is_external_url', 'sha256', 'sha1', 'md5', 'time_truncate', 'image_normalize', 'sum']) {
      expect(names).toContain(n);
    }
    const add = listFunctions().find((f) => f.name === 'add');
    expect(add?.signature).toBe('add(any, any) any');
  });
});

describe('options', () => {
  it('uses the injected clock', () => {
    expect(search('time_now_utc()', {}, { now: () => Date.UTC(2030, 5, 1, 12, 0, 0) })).toBe('2030-06-01T12:00:00Z');
  });
  it('defaults to the real clock', () => {
    const year = Number((search('time_now()', {}) as string).slice(0, 4));
    expect(year).toBe(new Date().getUTCFullYear());
  });
});

describe('called functions', () => {
  it('lists the functions an expression calls and the unknown ones', () => {
    const c = compile("[to_upper(a), nope(b)] | {x: length(@), y: `{\"type\": \"Function\", \"name\": \"fake\"}`} | sort_by(@, &bogus(x))");
    expect(c.functions).toEqual(['to_upper', 'nope', 'length', 'sort_by', 'bogus']);
    expect(c.unknownFunctions).toEqual(['nope', 'bogus']);
    expect(compile('a.b').functions).toEqual([]);
  });
});

describe('image settings', () => {
  it('follow Kyverno’s defaultRegistry and enableDefaultRegistryMutation', () => {
    expect(search("image_normalize('nginx')", {}, { images: { defaultRegistry: 'mirror.local', enableDefaultRegistryMutation: true } })).toBe('mirror.local/nginx:latest');
    expect(search("image_normalize('nginx')", {}, { images: { defaultRegistry: 'docker.io', enableDefaultRegistryMutation: false } })).toBe('nginx:latest');
    expect(search("image_normalize('ghcr.io/x/y')", {}, { images: { defaultRegistry: 'docker.io', enableDefaultRegistryMutation: false } })).toBe('ghcr.io/x/y:latest');
  });
});
