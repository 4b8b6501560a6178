/**
 * Go's quoting (src/go/quote.ts). There were three copies: the CEL libraries' strconv.Quote, the schema's
 * (which wrote `\x07` for Go's `\a` and left every non-ASCII rune unescaped) and JSON.stringify standing
 * in for the time package's quote (which escapes every non-ASCII byte). Each is checked here and where
 * its messages reach a user: CEL library errors, strict decoding, Kyverno's time functions.
 */
import { describe, expect, it } from 'vitest';
import { strconvQuote, timeQuote } from '../../src/go/index.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { strictDecode, SchemaRegistry } from '../../src/schema/index.js';
import { evaluate } from '../../src/kyverno/jmespath/index.js';

/** The error message of a JMESPath expression, or its value when it has none. */
function jmesError(expr: string, data: Record<string, string> = {}): string | unknown {
  const r = evaluate(expr, data);
  return r.ok ? r.value : r.error.message;
}
import { celError } from '../cel/lib/env.js';

describe('strconv.Quote', () => {
  it('keeps printable text, Unicode included', () => {
    expect(strconvQuote('abc')).toBe('"abc"');
    expect(strconvQuote('日本語 é 😀')).toBe('"日本語 é 😀"');
  });
  it('uses the short escapes, then \\x, \\u and \\U for unprintable runes', () => {
    expect(strconvQuote('"\\\x07\b\f\n\r\t\v')).toBe('"\\"\\\\\\a\\b\\f\\n\\r\\t\\v"');
    expect(strconvQuote('\x00\x1f\x7f')).toBe('"\\x00\\x1f\\x7f"');
    // C1 controls, soft hyphen (format), no-break space (a separator other than ' '), line separator, BOM
    expect(strconvQuote('\u0085\u00ad\u00a0\u2028\ufeff')).toBe('"\\u0085\\u00ad\\u00a0\\u2028\\ufeff"');
    expect(strconvQuote('\u{e0001}')).toBe('"\\U000e0001"');
    expect(strconvQuote('\ud800')).toBe('"\\ufffd"');
  });
  it('is what CEL library errors print', () => {
    expect(celError("semver('a\\u00a0.2.3')")).toBe('Invalid character(s) found in major number "a\\u00a0"');
  });
  it('is what strict decoding prints for an unknown field', () => {
    const registry = SchemaRegistry.builtin();
    const pod = registry.lookup('v1', 'Pod')!;
    expect(strictDecode(pod, { metadata: { 'bell\x07': 1 } })?.message).toBe('strict decoding error: unknown field "metadata.bell\\a"');
  });
});

describe("the time package's quote", () => {
  it('escapes every byte of a non-ASCII or control rune as \\x', () => {
    expect(timeQuote('abc')).toBe('"abc"');
    expect(timeQuote('é"\\')).toBe('"\\xc3\\xa9\\"\\\\"');
    expect(timeQuote('\n')).toBe('"\\x0a"');
  });
  it('is what time.Parse and time.ParseDuration errors print', () => {
    expect(jmesError("time_parse('2006-01-02', '2021-é')")).toContain('parsing time "2021-\\xc3\\xa9" as "2006-01-02": cannot parse "\\xc3\\xa9" as "01"');
    expect(jmesError("time_add('2021-01-02T15:04:05Z', '1é')")).toContain('time: unknown unit "\\xc3\\xa9" in duration "1\\xc3\\xa9"');
  });
});

describe('strconv.Quote where apimachinery prints %q', () => {
  it("field errors quote an invalid value as Go does (a control character as \\a, not JSON's \\u0007)", () => {
    const policy = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingAdmissionPolicy',
      metadata: { name: 'p' },
      spec: {
        failurePolicy: 'Sometimes\x07',
        matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] },
        mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: '[]' } }],
        reinvocationPolicy: 'Never',
      },
    };
    const messages = buildPolicySet([parseDocuments('p.json', JSON.stringify([policy]))]).problems.map((p) => p.message);
    expect(messages.some((m) => m.includes('Unsupported value: "Sometimes\\a": supported values: "Fail", "Ignore"'))).toBe(true);
  });
});
