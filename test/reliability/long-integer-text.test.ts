/**
 * Integer text read from a review (`int(object…)`, semver(), a format precision, a zone offset, a quantity,
 * a Kyverno anchor compared with an integer) was read whole with BigInt before any range was checked, and
 * V8 reads a decimal BigInt in superlinear time: 3,000,000 digits (a 3 MiB body allows that) took 1.5-2.2 s
 * in one call the review deadline cannot interrupt. Go's strconv stops at the overflow; text with more
 * significant digits than any 64-bit integer is now out of range without being read. A quantity of more
 * than MAX_DIGITS significant digits (apimachinery reads it whole, in quadratic time too) is refused as too
 * large to compute exactly, as arithmetic past 10^MAX_POW10 already was; a YAML decimal past every double
 * (parse_yaml) is refused as before, its digits no longer read. Counted, not timed: BigInt is
 * watched for the longest text it is given. */
import { describe, expect, it } from 'vitest';
import { compileExpression, Evaluation } from '../../src/cel/index.js';
import { runKyvernoPolicies } from '../../src/kyverno/index.js';
import { evaluate as jmesPath } from '../../src/kyverno/jmespath/index.js';
import { compiled, pod, podRequest } from '../kyverno/helpers/requests.js';
import { watchBigInt } from './helpers/watch-bigint.js';

const DIGITS = '7'.repeat(300_000);

const bigInts = watchBigInt();

function celError(expression: string): string {
  const r = compileExpression(`[${expression}].size() == 1`, 'matchCondition', { params: false });
  if (!r.ok) throw new Error(r.message);
  const out = new Evaluation({ object: { s: DIGITS } as never }, { budget: 10_000_000 }).evaluate(r.compiled);
  if (out.ok) throw new Error(`${expression} gave ${String(out.value)}`);
  return out.message;
}

describe('integer text longer than any int64, from the review', () => {
  it.each([
    ['int(object.s)', /type conversion error from 'string' to 'int'/],
    ['int("-000" + object.s)', /type conversion error from 'string' to 'int'/],
    ['uint(object.s)', /type conversion error from 'string' to 'uint'/],
    ['semver(object.s + ".0.0")', /strconv\.ParseUint: parsing "7{20}.*": value out of range/],
    ['("%." + object.s + "f").format([1.0])', /strconv\.Atoi: parsing "7{20}.*": value out of range/],
    ['quantity(object.s)', /quantity is too large to compute exactly/],
    ['quantity("1." + object.s + "Ki")', /quantity is too large to compute exactly/],
    ['quantity("1e" + object.s)', /unable to parse quantity's suffix/],
    ['timestamp("2020-01-01T00:00:00Z").getHours("+" + object.s + ":00")', /strconv\.Atoi: parsing "\+7{20}.*": value out of range/],
  ])('CEL %s: the range error, the text never read whole', (expression, message) => {
    expect(celError(expression)).toMatch(message);
    expect(bigInts.longestText).toBeLessThan(100);
  });

  it('isQuantity() of the long text is false without reading it; leading zeros are not significant', () => {
    const r = compileExpression('!isQuantity(object.s)', 'matchCondition', { params: false });
    if (!r.ok) throw new Error(r.message);
    expect(new Evaluation({ object: { s: DIGITS } as never }, { budget: 10_000_000 }).evaluate(r.compiled)).toMatchObject({ ok: true, value: true });
    expect(bigInts.longestText).toBeLessThan(100);
    const zeros = '0'.repeat(3_000);
    const kept = compileExpression(`quantity("${zeros}5") == quantity("5") && quantity("0.${zeros}1") == quantity("1n")`, 'matchCondition', { params: false });
    if (!kept.ok) throw new Error(kept.message);
    expect(new Evaluation({}, { budget: 10_000_000 }).evaluate(kept.compiled)).toMatchObject({ ok: true, value: true });
  });

  it('leading zeros are not significant digits: a long run of them still reads as Go reads it', () => {
    const r = compileExpression(`int("-${'0'.repeat(40)}42") == -42 && uint("${'0'.repeat(40)}18446744073709551615") == 18446744073709551615u`, 'matchCondition', { params: false });
    if (!r.ok) throw new Error(r.message);
    expect(new Evaluation({}, { budget: 10_000 }).evaluate(r.compiled)).toMatchObject({ ok: true, value: true });
  });

  it('Kyverno: a conditional anchor with an integer against the long text does not match, the text never read whole', async () => {
    const subject = pod('web', ['app']);
    (subject.spec as { containers: Record<string, unknown>[] }).containers[0].image = DIGITS;
    const policy = compiled({
      apiVersion: 'kyverno.io/v1',
      kind: 'ClusterPolicy',
      metadata: { name: 'anchor', annotations: { 'pod-policies.kyverno.io/autogen-controllers': 'none' } },
      spec: {
        rules: [
          {
            name: 'r',
            match: { any: [{ resources: { kinds: ['Pod'] } }] },
            mutate: { patchStrategicMerge: { spec: { containers: [{ '(image)': 5, imagePullPolicy: 'Always' }] } } },
          },
        ],
      },
    });
    const result = await runKyvernoPolicies([policy], { request: podRequest(subject) });
    expect(result.changed).toBe(false);
    expect(bigInts.longestText).toBeLessThan(100);
  });

  it('parse_yaml: a decimal past every double is refused naming its text, the text never read whole', () => {
    const r = jmesPath('parse_yaml(s)', { s: DIGITS });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.message).toMatch(/number 7{16}… \(300000 characters\) is out of the range of a double/);
    expect(bigInts.longestText).toBeLessThan(100);
    // As a mapping key: math/big's value printed in full, as before.
    const key = jmesPath('parse_yaml(s)', { s: `${'7'.repeat(500)}: 1` });
    expect(key.ok).toBe(false);
    if (!key.ok) expect(key.error.message).toContain(`unsupported map key of type: *big.Int, key: ${'7'.repeat(500)}`);
  });
});
