/**
 * Decision 0003 (docs/decisions/0003-yaml-library.md): the `yaml` package rather than js-yaml. Each case
 * is read through our public interfaces (Kyverno's `parse_yaml`, which is also how `patchesJson6902`
 * text is read, and the policy-set parser), always; and — when the devDependency `js-yaml@4.1.1` is
 * installed — by js-yaml with its default and core schemas, to show where it differs. The library half
 * is skipped while the package is absent; it needs no other change to run.
 */
import { describe, expect, it } from 'vitest';
import { isFloatLiteral, type JsonValue } from '../../src/json/index.js';
import { evaluate } from '../../src/kyverno/jmespath/index.js';
import { parseDocuments } from '../../src/policyset/index.js';

const LIBRARY = 'js-yaml';
const jsYaml: any = await import(/* @vite-ignore */ LIBRARY).then((m) => m.default ?? m).catch(() => undefined);

/** go-yaml v2 through sigs.k8s.io/yaml, as Kyverno reads `parse_yaml` and patchesJson6902 text. */
const GO_YAML_V2: { name: string; text: string; expected: JsonValue | 'error' }[] = [
  { name: 'YAML 1.1 booleans', text: 'a: yes\nb: off\nc: y\n', expected: { a: true, b: false, c: true } },
  { name: 'YAML 1.1 octal', text: 'mode: 0755\n', expected: { mode: 493 } },
  { name: 'a boolean key becomes its JSON text', text: 'on: 1\n', expected: { true: 1 } },
  { name: 'timestamps stay strings', text: 'since: 2001-12-14\n', expected: { since: '2001-12-14' } },
  { name: 'a repeated key overrides the earlier one', text: 'a: 1\na: 2\n', expected: { a: 2 } },
  { name: '.inf cannot become JSON', text: 'x: .inf\n', expected: 'error' },
];

function parseYaml(text: string): JsonValue | 'error' {
  const r = evaluate('parse_yaml(t)', { t: text });
  return r.ok ? r.value : 'error';
}

function jsYamlReads(text: string, schema: unknown): JsonValue | 'error' {
  try {
    const value = jsYaml.load(text, { schema });
    const json = JSON.stringify(value);
    return json === undefined ? 'error' : (JSON.parse(json) as JsonValue);
  } catch {
    return 'error';
  }
}

const STREAM = 'kind: A\nmetadata: {name: a}\n---\nkind: [unclosed\n---\nkind: C\nmetadata: {name: c}\nspec: {ratio: 1.0}\n';

describe('0003: what the YAML reader must do (our readers)', () => {
  for (const c of GO_YAML_V2) it(`parse_yaml: ${c.name}`, () => expect(parseYaml(c.text)).toEqual(c.expected));

  it('a broken document in a stream is one problem; the others load', () => {
    const parsed = parseDocuments('s.yaml', STREAM);
    expect(parsed.documents.map((d) => (d.value as { kind: string }).kind)).toEqual(['A', 'C']);
    expect(parsed.problems).toHaveLength(1);
    expect(parsed.problems[0]).toMatchObject({ source: 's.yaml', index: 1 });
  });

  it('a float written as 1.0 stays a double (the reply and the CEL type see float64)', () => {
    const spec = (parseDocuments('s.yaml', STREAM).documents[1].value as { spec: object }).spec;
    expect(isFloatLiteral(spec, 'ratio')).toBe(true);
  });
});

describe.skipIf(!jsYaml)('0003: js-yaml on the same texts', () => {
  const agreeing = (schema: unknown) =>
    GO_YAML_V2.filter((c) => JSON.stringify(jsYamlReads(c.text, schema)) === JSON.stringify(c.expected)).map((c) => c.name);
  it('reads none of the go-yaml v2 cases as Kyverno does with its default schema', () => {
    expect(agreeing(jsYaml.DEFAULT_SCHEMA)).toEqual([]);
  });
  it('with the core schema it keeps timestamps as strings, and still misses the rest', () => {
    expect(agreeing(jsYaml.CORE_SCHEMA)).toEqual(['timestamps stay strings']);
  });

  it('stops a whole stream at its first broken document', () => {
    expect(() => jsYaml.loadAll(STREAM)).toThrow();
  });

  it('hands 1.0 over as the number 1, with nothing left to tell it from an integer', () => {
    const docs = jsYaml.loadAll(STREAM.replace('kind: [unclosed\n', 'kind: B\n'));
    expect(docs[2].spec.ratio).toBe(1);
    expect(Number.isInteger(docs[2].spec.ratio)).toBe(true);
  });
});
