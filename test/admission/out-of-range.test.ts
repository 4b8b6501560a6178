import { describe, expect, it } from 'vitest';
import { validateReview } from '../../src/admission/index.js';

function errorOf(text: string): string {
  // JSON.parse reads ±Infinity where parseJson refuses the number: the validation still names it.
  const result = validateReview(JSON.parse(text));
  if (result.ok) throw new Error('expected a validation error');
  return result.error.message;
}

// A number literal past the double range parses as ±Infinity; the message must not call it `null`.
describe('validateReview: numbers out of range', () => {
  it('names a top-level 1e400 as a number out of range', () => {
    expect(errorOf('1e400')).toBe('AdmissionReview: expected a JSON object, got a number out of range');
    expect(errorOf('-1e400')).toBe('AdmissionReview: expected a JSON object, got a number out of range');
  });

  it('names an out-of-range field value the same way', () => {
    expect(errorOf('{"apiVersion":1e400}')).toBe(
      'apiVersion: expected "admission.k8s.io/v1" or "admission.k8s.io/v1beta1", got a number out of range',
    );
    expect(errorOf('{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":1e400}')).toBe(
      'request: expected an object, got a number out of range',
    );
    expect(errorOf('{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":-1e999}}')).toBe(
      'request.uid: expected a non-empty string, got a number out of range',
    );
  });

  it('still shows finite numbers as they are', () => {
    expect(errorOf('1e300')).toBe('AdmissionReview: expected a JSON object, got the number 1e+300');
    expect(errorOf('{"apiVersion":7}')).toBe(
      'apiVersion: expected "admission.k8s.io/v1" or "admission.k8s.io/v1beta1", got the number 7',
    );
  });
});
