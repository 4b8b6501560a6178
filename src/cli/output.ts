/**
 * How the CLI writes a document (a mutated resource, a patch, a reply) as JSON or YAML: as the server
 * writes its replies, an integer past ±2^53 that the input or a policy carried exactly (marked exact:
 * src/json/exact-integers.ts) is written with all its digits, never as the nearest double.
 */
import { stringify, type Tags } from 'yaml';
import { exactInteger, exactIntegersMarked, indentJsonText, jsonTextExact, type JsonValue } from '../json/index.js';

/** `JSON.stringify(value, null, 2)`, every exact integer with all its digits. */
export function jsonOutput(value: unknown): string {
  return indentJsonText(jsonTextExact(value), 2);
}

const MERGE_TAG = 'tag:yaml.org,2002:merge';

/**
 * Numbers go-yaml v2 reads that YAML 1.1 does not (src/go/yaml.ts: `strconv.ParseInt(s, 0, 64)` with `_`
 * removed, so `0o17`, `0X1F`, `0B1`, `-_1`; a float's exponent with `_`): a string of that form printed plain
 * would come back to kubectl, and to this CLI, as a number.
 */
const GO_YAML_NUMBER = /^(?:[-+]?0[xXoObB][0-9a-fA-F_]*|[-+]?[0-9._]+[eE][-+]?[0-9_]+|[-+]_[0-9a-fA-FxXoObB._eE+-]*)$/;

/**
 * The YAML 1.1 tags, plus tags only tested, never identified, so that the strings they match are seen
 * as not strings and quoted, as `yes` is: go-yaml's extra numbers, and `<<`, which the `yaml` package
 * otherwise writes (a key of a resource's map, an annotation's value) as the plain merge key that
 * kubectl's go-yaml and this CLI read back as a merge (a string value: "map merge requires map or
 * sequence of maps").
 */
const quoteForGoYaml = (tags: Tags): Tags => [
  ...tags.filter((t) => (typeof t === 'string' ? t !== 'merge' : t.tag !== MERGE_TAG)),
  { tag: MERGE_TAG, default: 'key', test: /^<<$/, identify: () => false, resolve: (text: string) => text },
  { tag: 'tag:yaml.org,2002:int', default: true, test: GO_YAML_NUMBER, identify: () => false, resolve: (text: string) => text },
];

/** The YAML the CLI prints: YAML 1.1, as kubectl reads it back (`yes`, `0755`, `0o17` or `<<` stays quoted); exact integers whole. */
export function yamlOutput(value: JsonValue): string {
  return stringify(exactIntegersMarked() ? withBigInts(value) : value, { lineWidth: 0, version: '1.1', customTags: quoteForGoYaml });
}

type Printable = JsonValue | bigint | Printable[] | { [key: string]: Printable };

/** A copy of `value` with each exact integer as a bigint, which the `yaml` package writes digit for digit. */
function withBigInts(value: JsonValue): Printable {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item, i) => member(value, i, item));
  const out: { [key: string]: Printable } = {};
  // defineProperty keeps a `__proto__` key an own member, as setOwn does.
  for (const key of Object.keys(value)) Object.defineProperty(out, key, { value: member(value, key, value[key]), enumerable: true, writable: true, configurable: true });
  return out;
}

function member(container: object, key: string | number, item: JsonValue): Printable {
  if (typeof item === 'number') return exactInteger(container, key) ?? item;
  return withBigInts(item);
}
