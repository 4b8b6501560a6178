import { describe, expect, it } from 'vitest';
import { parseFieldSelector } from '../../../src/cel/lib/field-selector.js';
import { parseLabelSelector } from '../../../src/cel/lib/label-selector.js';

describe('label selectors (labels.ParseToRequirements)', () => {
  it('parses every operator', () => {
    expect(parseLabelSelector('app=web, tier!=db,env in (prod,dev), !legacy, canary, x notin (a), n>5, m<10, k==v')).toEqual([
      { key: 'app', operator: '=', values: ['web'] },
      { key: 'tier', operator: '!=', values: ['db'] },
      { key: 'env', operator: 'in', values: ['dev', 'prod'] },
      { key: 'legacy', operator: '!', values: [] },
      { key: 'canary', operator: 'exists', values: [] },
      { key: 'x', operator: 'notin', values: ['a'] },
      { key: 'n', operator: 'gt', values: ['5'] },
      { key: 'm', operator: 'lt', values: ['10'] },
      { key: 'k', operator: '==', values: ['v'] },
    ]);
    expect(parseLabelSelector('')).toEqual([]);
    expect(parseLabelSelector('a=')).toEqual([{ key: 'a', operator: '=', values: [''] }]);
    expect(parseLabelSelector('example.com/app in (in, notin)')).toEqual([
      { key: 'example.com/app', operator: 'in', values: ['in', 'notin'] },
    ]);
  });

  it('reports parse errors as Kubernetes words them', () => {
    expect(() => parseLabelSelector('apple badoperator banana')).toThrow(
      "unable to parse requirement: found 'badoperator', expected: in, notin, =, ==, !=, gt, lt",
    );
    expect(() => parseLabelSelector('a=b,')).toThrow("found '', expected: identifier after ','");
    expect(() => parseLabelSelector('a in b')).toThrow("unable to parse requirement: found 'b' expected: '('");
    expect(() => parseLabelSelector('a=b c')).toThrow("found 'c', expected: ',' or 'end of string'");
    expect(() => parseLabelSelector('=b')).toThrow("found '=', expected: !, identifier, or 'end of string'");
    expect(() => parseLabelSelector('a>b')).toThrow(/the value must be an integer/);
    expect(() => parseLabelSelector('a b=c')).toThrow(/unable to parse requirement/);
    expect(() => parseLabelSelector('-bad=x')).toThrow(/Invalid value: "-bad"/);
  });
});

describe('field selectors (fields.ParseSelector)', () => {
  it('parses terms, sorted, with escapes', () => {
    expect(parseFieldSelector('spec.nodeName=n1,metadata.name!=x')).toEqual([
      { field: 'metadata.name', operator: '!=', value: 'x' },
      { field: 'spec.nodeName', operator: '=', value: 'n1' },
    ]);
    expect(parseFieldSelector('a==b')).toEqual([{ field: 'a', operator: '=', value: 'b' }]);
    expect(parseFieldSelector('a=x\\,y\\=z')).toEqual([{ field: 'a', operator: '=', value: 'x,y=z' }]);
    expect(parseFieldSelector('')).toEqual([]);
  });

  it('reports what it cannot understand', () => {
    expect(() => parseFieldSelector('foo badoperator bar')).toThrow(
      "invalid selector: 'foo badoperator bar'; can't understand 'foo badoperator bar'",
    );
  });
});
