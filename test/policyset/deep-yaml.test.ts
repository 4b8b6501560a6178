/**
 * YAML nested past the bound (MAX_YAML_DEPTH collections) is refused from the parser's syntax tree before
 * the `yaml` package composes it recursively: the same clear error at the same depth on every stack, never
 * a stack overflow, and only the document that deep is lost.
 */
import { describe, expect, it } from 'vitest';
import { MAX_YAML_DEPTH, parseYaml11, YamlError } from '../../src/go/index.js';
import { parseDocuments } from '../../src/policyset/index.js';

const TOO_DEEP = `the document nests too deeply to read (more than ${MAX_YAML_DEPTH} levels)`;

/** A ConfigMap whose `data.x` brings the document to `levels` nested collections, flow style. */
function flowConfigMap(levels: number): string {
  const n = levels - 2; // the document's mapping and `data`
  return `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\ndata:\n  x: ${'['.repeat(n)}${']'.repeat(n)}\n`;
}

/** A document of `levels` nested block mappings, one indentation step each. */
function blockMappings(levels: number): string {
  let text = 'kind: Deep\n';
  for (let i = 1; i < levels; i++) text += `${' '.repeat(i - 1)}k${i}:\n`;
  return `${text}${' '.repeat(levels - 1)}v: 1\n`;
}

/** A mapping holding `levels - 1` nested block sequences. */
function blockSequences(levels: number): string {
  let text = 'x:\n';
  for (let i = 0; i < levels - 2; i++) text += `${' '.repeat(2 * i)}-\n`;
  return `${text}${' '.repeat(2 * (levels - 2))}- 1\n`;
}

function heightOf(value: unknown): number {
  let height = 0;
  for (let v = value; v !== null && typeof v === 'object'; v = Array.isArray(v) ? v[0] : Object.values(v as object).at(-1)) height++;
  return height;
}

describe('parseDocuments: YAML nested too deeply', () => {
  for (const [style, text] of [
    ['flow', flowConfigMap],
    ['block mapping', blockMappings],
    ['block sequence', blockSequences],
  ] as const) {
    it(`reads ${style} YAML at the bound`, () => {
      const parsed = parseDocuments('deep.yaml', text(MAX_YAML_DEPTH));
      expect(parsed.problems).toEqual([]);
      expect(heightOf(parsed.documents[0]?.value)).toBe(MAX_YAML_DEPTH);
    });

    for (const levels of [MAX_YAML_DEPTH + 1, 10_000]) {
      it(`refuses ${style} YAML ${levels} levels deep with the documented error`, () => {
        const parsed = parseDocuments('deep.yaml', text(levels));
        expect(parsed.documents).toEqual([]);
        expect(parsed.problems).toHaveLength(1);
        expect(parsed.problems[0].message).toMatch(new RegExp(`^invalid YAML: ${TOO_DEEP.replace(/[()]/g, '\\$&')} at line \\d+, column \\d+`));
      });
    }
  }

  it('refuses a flow collection nested in pairs (`[a: [a: …]]`) at the same bound', () => {
    const pairs = (n: number) => `${'[a: '.repeat(n)}1${']'.repeat(n)}\n`;
    expect(parseDocuments('pairs.yaml', `x: ${pairs(MAX_YAML_DEPTH / 2 - 1)}`).problems).toEqual([]);
    expect(parseDocuments('pairs.yaml', `x: ${pairs(MAX_YAML_DEPTH / 2)}`).problems[0].message).toContain(TOO_DEEP);
    expect(parseDocuments('pairs.yaml', `x: ${pairs(10_000)}`).problems[0].message).toContain(TOO_DEEP);
  });

  it('refuses a deep block document that goes back to its first level (the parser closes each level)', () => {
    for (const deep of [blockMappings(10_000), blockSequences(10_000)]) {
      const parsed = parseDocuments('d.yaml', `${deep}after: 1\n`);
      expect(parsed.documents).toEqual([]);
      expect(parsed.problems.map((p) => p.message.split(' at line')[0])).toEqual([`invalid YAML: ${TOO_DEEP}`]);
    }
  });

  it('loses only the deep document of a stream: its neighbours load', () => {
    const stream = ['kind: A\n', flowConfigMap(10_000), blockMappings(10_000), 'kind: B\n', blockSequences(10_000), 'kind: C\n'].join('---\n');
    const parsed = parseDocuments('stream.yaml', stream);
    expect(parsed.documents.map((d) => [d.index, d.value.kind])).toEqual([
      [0, 'A'],
      [3, 'B'],
      [5, 'C'],
    ]);
    expect(parsed.problems.map((p) => [p.index, p.message.split(' at line')[0]])).toEqual([
      [1, `invalid YAML: ${TOO_DEEP}`],
      [2, `invalid YAML: ${TOO_DEEP}`],
      [4, `invalid YAML: ${TOO_DEEP}`],
    ]);
  });

  it('says so the same way every time (no dependence on how warm the parser is)', () => {
    const messages = new Set<string>();
    for (let i = 0; i < 5; i++) for (const levels of [MAX_YAML_DEPTH + 1, 800, 1000, 3000]) messages.add(parseDocuments('d.yaml', flowConfigMap(levels)).problems[0]?.message.split(' at line')[0]);
    expect([...messages]).toEqual([`invalid YAML: ${TOO_DEEP}`]);
  });
});

describe('parseYaml11 (Kyverno parse_yaml, yaml.parse, patches): the same bound', () => {
  it('reads YAML at the bound and refuses YAML past it with a YamlError', () => {
    expect(heightOf(parseYaml11(`${'['.repeat(MAX_YAML_DEPTH)}${']'.repeat(MAX_YAML_DEPTH)}`))).toBe(MAX_YAML_DEPTH);
    for (const levels of [MAX_YAML_DEPTH + 1, 10_000]) {
      expect(() => parseYaml11(`${'['.repeat(levels)}${']'.repeat(levels)}`)).toThrow(YamlError);
      expect(() => parseYaml11(blockMappings(levels))).toThrow(TOO_DEEP);
    }
  });

  it('bounds the depth aliases reach too', () => {
    // Each anchored list holds the one before it one level deeper: 3 × 200 levels through aliases.
    const chain = `a: &a ${'['.repeat(199)}${']'.repeat(199)}\nb: &b ${'['.repeat(199)}*a${']'.repeat(199)}\nc: ${'['.repeat(199)}*b${']'.repeat(199)}\n`;
    expect(() => parseYaml11(chain)).toThrow(TOO_DEEP);
  });
});
