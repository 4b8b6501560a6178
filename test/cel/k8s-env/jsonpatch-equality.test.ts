/**
 * JSONPatch values compare their `value` fields with the value's own Equal (apiserver
 * pkg/cel/mutation/jsonpatch.go JSONPatchVal.Equal returns p.Val.Equal(o.Val)), so a Kubernetes library
 * value against another type is cel-go's 'no such overload' there too: == fails, != is true, and a list
 * equality does not stop at it.
 */
import { describe, expect, it } from 'vitest';
import { k8sEval } from './run.js';

const patch = (value: string) => `JSONPatch{op: 'add', path: '/x', value: ${value}}`;

describe('JSONPatch equality of values', () => {
  it('a quantity against an int is no such overload', () => {
    expect(k8sEval(`${patch("quantity('1')")} == ${patch('1')}`)).toEqual({ error: 'no such overload' });
    expect(k8sEval(`${patch("quantity('1')")} != ${patch('1')}`)).toEqual({ value: true });
    expect(k8sEval(`[${patch("quantity('1')")}] == [${patch('1')}]`)).toEqual({ value: true });
  });

  it('values of one kind compare as CEL compares them', () => {
    expect(k8sEval(`${patch("quantity('1')")} == ${patch("quantity('1000m')")}`)).toEqual({ value: true });
    expect(k8sEval(`${patch('dyn(1.0)')} == ${patch('1')}`)).toEqual({ value: true });
    expect(k8sEval(`${patch("'a'")} == ${patch("'b'")}`)).toEqual({ value: false });
  });
});
