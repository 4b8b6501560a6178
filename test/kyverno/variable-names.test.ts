/** Names of values given to the engine, split as Kyverno's context.AddVariable splits them (CSV, `.` separator). */
import { describe, expect, it } from 'vitest';
import { splitVariableName } from '../../src/kyverno/context/variable-names.js';

describe('splitVariableName', () => {
  it('splits at dots outside double quotes', () => {
    expect(splitVariableName('request.object.metadata.name')).toEqual(['request', 'object', 'metadata', 'name']);
    expect(splitVariableName('metadata.labels."com.example/my-label"')).toEqual(['metadata', 'labels', 'com.example/my-label']);
    expect(splitVariableName('a."say ""hi"""')).toEqual(['a', 'say "hi"']);
    expect(splitVariableName('a.')).toEqual(['a', '']);
  });
  it('refuses what Go’s CSV reader refuses', () => {
    expect(splitVariableName('')).toBeUndefined();
    expect(splitVariableName('a"b.c')).toBeUndefined();
    expect(splitVariableName('"a"b.c')).toBeUndefined();
    expect(splitVariableName('"a.b')).toBeUndefined();
  });
});
