/**
 * A source's YAML read a slice at a time (parseDocumentsInSlices), pausing between slices, with the very
 * result parseDocuments gives; and documents handed over one at a time as they are composed (each is
 * converted and dropped then, instead of every Document of the stream being held until the last: a 1 MiB
 * file of 100,000 tiny documents held 230 MB of heap, now about 50). Work is counted, not timed.
 */
import { describe, expect, it } from 'vitest';
import { yamlDocumentReader } from '../../src/go/index.js';
import { parseDocuments, parseDocumentsInSlices } from '../../src/policyset/index.js';

/** `n` tiny documents: 9 lexemes each (`---`, newline, `a`, `:`, space, scalar marker, `1`, newline…). */
const tiny = (n: number) => '---\na: 1\n'.repeat(n);

const TEXTS: Record<string, string> = {
  tiny: tiny(300),
  'errors and good documents': 'a: 1\n---\nb: [1, 2\n---\nkind: List\nitems: 3\n---\nc: !!int x\n---\nd: {e: 0400, f: on, g: 1.0}\n---\nh: 1\nh: 2\n',
  'too deep between two': `a: 1\n---\n${'['.repeat(600)}${']'.repeat(600)}\n---\nb: 2\n`,
  'a JSON array': '[{"a": 1}, {"b": 2.0}, 3]',
  'a byte-order mark': '\ufeffa: 1\n',
  'an unclosed flow mapping': 'kind: X\nmetadata: {name: broken\n',
  empty: '',
  'only comments': '# nothing\n',
  'a block scalar at the end': 'a: |\n  text',
};

describe('parseDocumentsInSlices', () => {
  for (const [name, text] of Object.entries(TEXTS)) {
    it(`reads ${name} as parseDocuments does, whatever the slice`, async () => {
      const whole = parseDocuments('s.yaml', text);
      for (const lexemes of [1, 7, 4096]) {
        expect(await parseDocumentsInSlices('s.yaml', text, async () => {}, lexemes)).toEqual(whole);
      }
    });
  }

  it('pauses once per slice of lexemes', async () => {
    let pauses = 0;
    const parsed = await parseDocumentsInSlices('s.yaml', tiny(2000), async () => void pauses++, 1000, Infinity);
    expect(parsed.documents).toHaveLength(2000);
    expect(parsed.problems).toEqual([]);
    // 18,000 lexemes: 18 slices of 1,000, then the end found.
    expect(pauses).toBe(18);
  });

  it('ends a slice short of its lexemes once its time has passed', async () => {
    let pauses = 0;
    const parsed = await parseDocumentsInSlices('s.yaml', tiny(2000), async () => void pauses++, 4096, 0);
    expect(parsed).toEqual(parseDocuments('s.yaml', tiny(2000)));
    // 18,000 lexemes, the clock looked at every 256: a pause each time. Before: 4 slices of 4,096.
    expect(pauses).toBeGreaterThanOrEqual(70);
  });
});

describe('yamlDocumentReader', () => {
  it('hands a document over once the document after it is composed, before the rest of the text is read', () => {
    const reader = yamlDocumentReader(tiny(4), { version: '1.1', schema: 'failsafe' });
    const seen: unknown[] = [];
    const onDocument = (doc: { contents: unknown }) => (seen.push(doc.contents), true);
    // Two documents of 9 lexemes, then the third's `---` and line break: the parser ends the second
    // document, and the composer hands the first over.
    expect(reader.read(20, onDocument)).toBe(false);
    expect(seen).toHaveLength(1);
    expect(reader.read(9, onDocument)).toBe(false);
    expect(seen).toHaveLength(2);
    expect(reader.read(100, onDocument)).toBe(true);
    expect(seen).toHaveLength(4);
  });

  it('stops when told', () => {
    const reader = yamlDocumentReader(tiny(5), { version: '1.1', schema: 'failsafe' });
    let seen = 0;
    expect(reader.read(Infinity, () => ++seen < 2)).toBe(true);
    expect(seen).toBe(2);
    expect(reader.done).toBe(true);
  });
});
