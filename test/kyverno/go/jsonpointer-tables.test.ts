/**
 * Kyverno's jsonpointer tables (jsonpointer-tables.json, data transcribed from kyverno/kyverno @
 * 111e07bbecc6: pkg/utils/jsonpointer/pointer_test.go TestParsePath, TestPointer_AppendPath,
 * TestPointer_JMESPath): the two halves of what `{{@}}` stands for (src/kyverno/context/self-path.ts),
 * reading a traversal path and writing a pointer as JMESPath. Then what pointer.go does beyond its
 * tables, read from its code.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { jmesPathOf, parsePath, selfPathExpression } from '../../../src/kyverno/context/self-path.js';

interface Case {
  source: string;
  parsePath?: string;
  pointer: string[];
  jmesPath?: string;
}

const cases = JSON.parse(readFileSync(new URL('./jsonpointer-tables.json', import.meta.url), 'utf8')) as Case[];

describe("Kyverno's jsonpointer tables", () => {
  it(`ParsePath (${cases.filter((c) => c.parsePath !== undefined).length} cases)`, () => {
    const wrong = cases.filter((c) => c.parsePath !== undefined && JSON.stringify(parsePath(c.parsePath)) !== JSON.stringify(c.pointer));
    expect(wrong.map((c) => `${c.source}: ${JSON.stringify(parsePath(c.parsePath!))}`)).toEqual([]);
  });
  it(`JMESPath (${cases.filter((c) => c.jmesPath !== undefined).length} cases)`, () => {
    const wrong = cases.filter((c) => c.jmesPath !== undefined && jmesPathOf(c.pointer) !== c.jmesPath);
    expect(wrong.map((c) => `${c.source}: ${jmesPathOf(c.pointer)}`)).toEqual([]);
  });
});

describe('pointer.go beyond its tables', () => {
  it('ParsePath: empty segments dropped, U+FFFD (or a lone surrogate, which Go decodes as U+FFFD) ends the path', () => {
    expect(parsePath('//a//b/')).toEqual(['a', 'b']);
    expect(parsePath('/a/b\uFFFDc/d')).toEqual(['a', 'b']);
    expect(parsePath('/a/b\uD800c/d')).toEqual(['a', 'b']);
    // Escaped, it is written (as U+FFFD); a trailing backslash escapes the end of the string, read as U+FFFD.
    expect(parsePath('/a/b\\\uD800c')).toEqual(['a', 'b\uFFFDc']);
    expect(parsePath('/a/b\\')).toEqual(['a', 'b\uFFFD']);
    // Quotes group and vanish; an escaped quote is a character.
    expect(parsePath('/a"b/c"d/\\"e')).toEqual(['ab/cd', '"e']);
  });
  it('JMESPath: an index is what ParseUint(…, 10, 64) reads; bare identifiers per its two range tables', () => {
    expect(jmesPathOf(['a', '18446744073709551615', '18446744073709551616', '007', '-1', '+1'])).toBe('a[18446744073709551615]."18446744073709551616"[007]."-1"."+1"');
    expect(jmesPathOf(['a', 'b)', '(b)', '(b', '_1', '1a'])).toBe('a.b)."(b)"."(b"._1."1a"');
    expect(jmesPathOf(['a', 'q"b\\s/\u007f\u001f'])).toBe('a."q\\"b\\\\s/\u007f\\u001f"');
  });
  it('{{@}}: past the first foreach, two more segments dropped (none left from two or fewer), under the prefix', () => {
    expect(selfPathExpression('/mutate/patchStrategicMerge/spec/x', 'request.object')).toBe('request.object.spec.x');
    expect(selfPathExpression('/mutate/foreach/0/foreach/1/patchStrategicMerge/x', 'request.object')).toBe('request.object[1].patchStrategicMerge.x');
    expect(selfPathExpression('/patchStrategicMerge/spec/x', 'target')).toBe('target.x');
    expect(selfPathExpression('/mutate/patchesJson6902', 'request.object')).toBe('request.object');
    expect(selfPathExpression('', 'request.object')).toBe('request.object');
    expect(selfPathExpression('/mutate/foreach', 'request.object')).toBe('request.object');
  });
});
