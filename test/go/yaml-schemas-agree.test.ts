/**
 * parseYaml11 composes with the failsafe schema (no value resolved by the `yaml` package) and
 * parseYaml11Document with the YAML 1.1 one; yaml11Json must read both alike, errors and their positions
 * included, since it resolves every value itself. Seeded texts mixing tags, anchors, merges, number and
 * boolean forms, block scalars and documents; about half of them are errors.
 */
import { describe, expect, it } from 'vitest';
import { parseYaml11, parseYaml11Document, yaml11Json } from '../../src/go/yaml.js';

const SCALARS = ['1', '-0', '0x1F', '0o17', '1_000', '08', '1.5', '.inf', '-.Inf', '.nan', 'yes', 'No', 'on', 'y', '~', 'null', '', '<<', 'abc', '2024-01-02', '2024-01-02T10:00:00Z', '1e3', '"q"', "'s'", '"\\x41"', '12:30', '0b101', '+5', '9223372036854775808', '18446744073709551616', '"<<"', 'FALSE', '=', 'aGk=', '%%%'];
const TAGS = ['', '', '', '', '!!str ', '!!int ', '!!float ', '!!bool ', '!!null ', '!!binary ', '!!timestamp ', '!!merge ', '!!map ', '!!seq ', '!!set ', '!!omap ', '!!pairs ', '!foo ', '!<constructor> ', '!<tag:yaml.org,2002:int> ', '! ', '!!value ', '!e!x '];
const KEYS = ['a', 'b', '<<', '1', 'on', '~', '? x', '!!merge <<', '*a0'];

function texts(count: number): string[] {
  let seed = 12345;
  const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed % n);
  const pick = <T>(a: T[]) => a[rnd(a.length)];
  let anchors = 0;
  const node = (depth: number, indent: string): string => {
    const tag = pick(TAGS);
    const anchor = rnd(8) === 0 ? `&a${anchors++} ` : '';
    const r = rnd(depth > 3 ? 3 : 7);
    if (r < 3) return rnd(10) === 0 && anchors > 0 ? `*a${rnd(anchors)}` : `${anchor}${tag}${pick(SCALARS)}`;
    if (r === 3) return `${anchor}${tag}[${Array.from({ length: rnd(4) }, () => node(depth + 1, indent)).join(', ')}]`;
    if (r === 4) return `${anchor}${tag}{${Array.from({ length: rnd(4) }, () => `${node(depth + 3, indent)}: ${node(depth + 1, indent)}`).join(', ')}}`;
    if (r === 5) return `${anchor}${tag}\n${Array.from({ length: 1 + rnd(3) }, () => `${indent}  ${pick(KEYS)}: ${node(depth + 1, `${indent}  `)}`).join('\n')}`;
    return `${anchor}${tag}|\n${indent}  line\n${indent}  two`;
  };
  return Array.from({ length: count }, () => {
    anchors = 0;
    const directive = rnd(5) === 0 ? '%TAG !e! tag:e.com,2000:\n---\n' : '';
    return `${directive}k: ${node(0, '')}\n${rnd(4) === 0 ? `m: ${node(1, '')}\n` : ''}${rnd(10) === 0 ? '---\nx: 1\n' : ''}`;
  });
}

const outcome = (read: () => unknown): string => {
  try {
    return JSON.stringify(read());
  } catch (e) {
    return `error: ${(e as Error).message}`;
  }
};

describe('the failsafe and YAML 1.1 schemas', () => {
  it('give the same values and errors', () => {
    const all = texts(3000);
    const differ = all.filter((text) => outcome(() => parseYaml11(text)) !== outcome(() => yaml11Json(parseYaml11Document(text), text)));
    expect(differ).toEqual([]);
    // Both kinds of outcome are compared.
    expect(all.filter((text) => outcome(() => parseYaml11(text)).startsWith('error: ')).length).toBeGreaterThan(1000);
  });
});
