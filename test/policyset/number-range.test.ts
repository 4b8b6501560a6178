/** Numbers past the double range in policy documents: the document is refused, never read as ±Infinity. */
import { describe, expect, it } from 'vitest';
import { parseDocuments } from '../../src/policyset/index.js';

const BIG = '9'.repeat(400);

describe('parseDocuments: numbers past the double range', () => {
  it('refuses a JSON document holding one, as parseJson does', () => {
    const parsed = parseDocuments('p.json', '{"kind":"A","x":1e999}');
    expect(parsed.documents).toEqual([]);
    expect(parsed.problems.map((p) => p.message)).toEqual(['invalid JSON: Number 1e999 is out of the range of a double at position 16']);
  });

  it('refuses a YAML integer too large for a double, alone in its stream', () => {
    const parsed = parseDocuments('p.yaml', `kind: A\n---\nkind: B\nx: ${BIG}\n`);
    expect(parsed.documents.map((d) => d.value.kind)).toEqual(['A']);
    expect(parsed.problems.map((p) => [p.index, p.message.split('\n')[0]])).toEqual([[1, 'invalid YAML: number 9999999999999999… (400 characters) is out of the range of a double at line 4, column 4:']]);
  });

  it('reads what go-yaml v2 reads: 1e999 is text (ParseFloat failed), 1e-400 is 0, a negative past int64 is text', () => {
    const parsed = parseDocuments('p.yaml', `kind: A\na: 1e999\nb: 1e-400\nc: -${BIG}\n`);
    expect(parsed.problems).toEqual([]);
    expect(parsed.documents[0].value).toEqual({ kind: 'A', a: '1e999', b: 0, c: `-${BIG}` });
  });
});
