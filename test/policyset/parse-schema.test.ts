/**
 * The documents of policy files share one YAML Schema: the `yaml` package made one per Document (its
 * tag list built again, our custom tags added), 116,508 of them for a 1 MiB file of tiny documents.
 * Counted: the calls of the package's getTags, which each Schema makes once. The documents read exactly
 * as they did, tags, merges and a `%YAML` directive included.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseYamlDepthBounded, yaml11Json } from '../../src/go/index.js';
import { parseDocuments } from '../../src/policyset/index.js';

const require = createRequire(import.meta.url);
/** The module whose getTags each new Schema calls (the instance the `yaml` package itself loads). */
const tags = require(join(dirname(require.resolve('yaml')), 'schema', 'tags.js')) as { getTags: (...args: unknown[]) => unknown };

afterEach(() => vi.restoreAllMocks());

describe('the Schema of a policy file’s documents', () => {
  it('is made once, not once per document', () => {
    const getTags = vi.spyOn(tags, 'getTags');
    const parsed = parseDocuments('tiny.yaml', '---\na: 1\n'.repeat(1000));
    expect(parsed.documents).toHaveLength(1000);
    // Before: 1000 (one per document).
    expect(getTags.mock.calls.length).toBeLessThanOrEqual(1);
  });

  // What each document reads as when it has a Schema of its own (parseYamlDepthBounded makes one per document).
  const each = (text: string) =>
    parseYamlDepthBounded(text, { version: '1.1', schema: 'failsafe', uniqueKeys: false, prettyErrors: true }).map((doc) => {
      if (doc.errors.length > 0) return `error: ${doc.errors[0].message}`;
      try {
        return yaml11Json(doc, text.endsWith('\n') ? text : `${text}\n`, { uniqueKeys: true, markNumbers: true });
      } catch (err) {
        return `error: ${(err as Error).message}`;
      }
    });
  const read = (text: string) => {
    const parsed = parseDocuments('t.yaml', text);
    const out: unknown[] = [];
    for (const d of parsed.documents) out[d.index] = d.value;
    for (const p of parsed.problems) out[p.index] = `error: ${p.message.replace(/^invalid YAML: /, '')}`;
    return out;
  };

  for (const [name, text] of Object.entries({
    tags: 'a: !!binary aGVsbG8=\nb: !!int "7"\nc: !!set {x}\nd: !!timestamp 2001-12-14\ne: !!float 1\nf: !custom x\n---\ng: !!omap [a: 1]\n',
    merges: 'base: &b {x: 1, y: 2}\nm:\n  <<: *b\n  y: 3\n---\nn: {<<: [{a: 1}, {a: 2}]}\n',
    'a %YAML 1.2 directive': '%YAML 1.2\n---\na: !!binary aGVsbG8=\nb: on\n---\nc: 0400\n',
    'a %YAML 1.1 directive': '%YAML 1.1\n---\na: yes\n',
    'a %TAG directive': '%TAG !e! tag:example.com,2000:\n---\na: !e!x 1\n',
  })) {
    it(`reads ${name} as a Schema per document does`, () => {
      expect(read(text)).toEqual(each(text));
    });
  }
});
