/** The CLI's documents (`review --input`, `apply --resource`, …) nested too deeply: a clear input error. */
import { describe, expect, it } from 'vitest';
import { parseSingleDocument } from '../../src/cli/documents.js';
import { CliInputError } from '../../src/cli/errors.js';
import { MAX_YAML_DEPTH } from '../../src/go/index.js';

const pod = (levels: number) => `apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n    x: ${'['.repeat(levels - 3)}${']'.repeat(levels - 3)}\n`;

describe('parseSingleDocument: YAML nested too deeply', () => {
  it('reads a document at the bound', () => {
    expect(parseSingleDocument(pod(MAX_YAML_DEPTH), 'pod.yaml').kind).toBe('Pod');
  });

  it('refuses a block-style document past the bound the same way', () => {
    let text = 'kind: Pod\nspec:\n';
    for (let i = 1; i < 10_000; i++) text += `${' '.repeat(i)}k:\n`;
    const read = () => parseSingleDocument(`${text}status: {}\n`, 'pod.yaml');
    expect(read).toThrow(`pod.yaml: invalid YAML: the document nests too deeply to read (more than ${MAX_YAML_DEPTH} levels) at line `);
  });

  for (const levels of [MAX_YAML_DEPTH + 1, 950, 10_000]) {
    it(`refuses one ${levels} levels deep with the documented error`, () => {
      const read = () => parseSingleDocument(pod(levels), 'pod.yaml');
      expect(read).toThrow(CliInputError);
      expect(read).toThrow(`pod.yaml: invalid YAML: the document nests too deeply to read (more than ${MAX_YAML_DEPTH} levels) at line 6, column `);
    });
  }
});
