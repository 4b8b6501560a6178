import { describe, expect, it } from 'vitest';
import { rootReadPaths } from '../../src/cel/index.js';

describe('rootReadPaths', () => {
  it('lists the selection chains that start at the variable', () => {
    expect(rootReadPaths('size(object.spec.containers) > 0 && object.metadata.namespace != "kube-system"', 'object')).toEqual([
      ['spec', 'containers'],
      ['metadata', 'namespace'],
    ]);
    expect(rootReadPaths('!has(object.metadata.labels) || !("team" in object.metadata.labels)', 'object')).toEqual([
      ['metadata', 'labels'],
      ['metadata', 'labels'],
    ]);
    // What follows a chain (an index, a macro over it) reads the value at its end.
    expect(rootReadPaths('object.spec.containers.exists(c, c.image == "x") && object.spec.containers[0].name == "a"', 'object')).toEqual([
      ['spec', 'containers'],
      ['spec', 'containers'],
    ]);
  });

  it('gives the empty path for a bare use, and no paths when the variable is not read', () => {
    expect(rootReadPaths('object == oldObject', 'object')).toEqual([[]]);
    expect(rootReadPaths('request.operation == "CREATE"', 'object')).toEqual([]);
  });

  it('cannot tell when a comprehension variable shadows the name or the text does not parse', () => {
    expect(rootReadPaths('[1, 2].all(object, object > 0) && object.spec.x == 1', 'object')).toBeUndefined();
    expect(rootReadPaths('object.spec.(', 'object')).toBeUndefined();
  });
});
