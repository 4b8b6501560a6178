/**
 * optional.ofNonZeroValue asks its argument whether it is a zero value through traits.Zeroer (cel-go
 * cel/library.go); cel-go's Optional implements no IsZeroValue, so an empty optional is wrapped.
 */
import { describe, expect, it } from 'vitest';
import { k8sEval } from './run.js';

describe('optional.ofNonZeroValue', () => {
  it('wraps optional.none(): an optional is no Zeroer', () => {
    expect(k8sEval('optional.ofNonZeroValue(optional.none()).hasValue()')).toEqual({ value: true });
    expect(k8sEval('optional.ofNonZeroValue(optional.none()).value().hasValue()')).toEqual({ value: false });
  });

  it('is none for the zero values of Zeroer types', () => {
    expect(k8sEval("!optional.ofNonZeroValue('').hasValue() && !optional.ofNonZeroValue(0u).hasValue()")).toEqual({ value: true });
    expect(k8sEval("optional.ofNonZeroValue(duration('0s')).hasValue()")).toEqual({ value: false });
    expect(k8sEval('optional.ofNonZeroValue(null).hasValue()')).toEqual({ value: false });
  });
});
