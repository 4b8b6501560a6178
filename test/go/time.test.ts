/**
 * Go's time.Parse(time.RFC3339) (src/go/time.ts), the one parser behind CEL's timestamp(), strict
 * decoding of metav1.Time and Kyverno's time functions. There were three: CEL's regular expression
 * accepted `t`/`z` in lower case and refused a one-digit hour, a `,` before the fraction, more than nine
 * fraction digits and a `+24:00` offset — all the other way round in Go — and the schema's copy refused
 * an offset minute of 60, which Go accepts.
 */
import { describe, expect, it } from 'vitest';
import { rfc3339Error, tryParseRFC3339, unixNanos } from '../../src/go/index.js';
import { SchemaRegistry, strictDecode } from '../../src/schema/index.js';
import { evaluate } from '../../src/kyverno/jmespath/index.js';

/** The error message of a JMESPath expression, or its value when it has none. */
function jmesError(expr: string, data: Record<string, string> = {}): string | unknown {
  const r = evaluate(expr, data);
  return r.ok ? r.value : r.error.message;
}
import { cel, celError } from '../cel/lib/env.js';

const nanos = (text: string) => {
  const t = tryParseRFC3339(text);
  return t && unixNanos(t);
};

describe('time.Parse(time.RFC3339)', () => {
  it('accepts what Go accepts beyond the strict RFC 3339 grammar', () => {
    expect(nanos('2021-01-02T03:04:05Z')).toBe(1609556645n * 1_000_000_000n);
    expect(nanos('2021-01-02T3:04:05Z')).toBe(nanos('2021-01-02T03:04:05Z'));
    expect(nanos('2021-01-02T03:04:05,5Z')).toBe(nanos('2021-01-02T03:04:05.5Z'));
    expect(nanos('2021-01-02T03:04:05.1234567891Z')).toBe(nanos('2021-01-02T03:04:05.123456789Z'));
    expect(nanos('2021-01-02T03:04:05+24:00')).toBe(nanos('2021-01-01T03:04:05Z'));
    expect(nanos('2021-01-02T03:04:05+01:60')).toBe(nanos('2021-01-02T01:04:05Z'));
  });
  it('refuses lower-case separators and out-of-range fields, with Go messages', () => {
    expect(nanos('2021-01-02t03:04:05Z')).toBeUndefined();
    expect(nanos('2021-01-02T03:04:05z')).toBeUndefined();
    expect(rfc3339Error('2021-01-02T03:04:05+25:00')).toBe('parsing time "2021-01-02T03:04:05+25:00": time zone offset hour out of range');
    expect(rfc3339Error('2021-01-02T03:04:05+01:61')).toBe('parsing time "2021-01-02T03:04:05+01:61": time zone offset minute out of range');
    expect(rfc3339Error('2021-02-29T00:00:00Z')).toBe('parsing time "2021-02-29T00:00:00Z": day out of range');
    expect(rfc3339Error('2021-01-02T24:00:00Z')).toBe('parsing time "2021-01-02T24:00:00Z": hour out of range');
  });
});

describe('the same verdict in every engine', () => {
  const registry = SchemaRegistry.builtin();
  const pod = registry.lookup('v1', 'Pod')!;
  const decodeError = (t: string) => strictDecode(pod, { metadata: { creationTimestamp: t } })?.message;
  const accepted = ['2021-01-02T3:04:05Z', '2021-01-02T03:04:05,5+01:60', '2021-01-02T03:04:05.1234567891-24:00'];
  const refused = ['2021-01-02t03:04:05Z', '2021-01-02T03:04:05z', '2021-01-02T03:04:05+01:61'];
  it('CEL timestamp()', () => {
    for (const t of accepted) expect(cel('timestamp(t) > timestamp("2000-01-01T00:00:00Z")', { t }), t).toBe(true);
    for (const t of refused) expect(celError('timestamp(t)', { t }), t).toBe("type conversion error from 'string' to 'google.protobuf.Timestamp'");
  });
  it('strict decoding of metav1.Time', () => {
    for (const t of accepted) expect(decodeError(t), t).toBeUndefined();
    for (const t of refused) expect(decodeError(t), t).toBe(rfc3339Error(t));
  });
  it("Kyverno's time functions", () => {
    for (const t of accepted) expect(evaluate('time_utc(t)', { t }).ok, t).toBe(true);
    for (const t of refused) expect(jmesError('time_utc(t)', { t }), t).toContain(rfc3339Error(t));
  });
});
