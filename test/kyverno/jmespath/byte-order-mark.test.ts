/**
 * A leading U+FEFF in decoded bytes is a character of the Go string, not a byte order mark to drop:
 * Go's string(b) keeps every byte. TextDecoder drops it unless told `ignoreBOM`.
 */
import { describe, expect, it } from 'vitest';
import { compileExpression, Evaluation } from '../../../src/cel/index.js';
import { evaluate } from '../../../src/kyverno/jmespath/index.js';

const BOM_A = '77u/YQ=='; // base64 of EF BB BF 61: U+FEFF then 'a'

describe('bytes starting with EF BB BF, read as a string', () => {
  it("JMESPath base64_decode keeps the U+FEFF (Kyverno's base64_decode returns string(bytes))", () => {
    const r = evaluate(`length(base64_decode('${BOM_A}'))`, {});
    expect(r.ok && r.value).toBe(2);
    const text = evaluate(`base64_decode('${BOM_A}')`, {});
    expect(text.ok && text.value).toBe('\ufeffa');
  });

  it("Kyverno CEL gzip.decompress keeps it (kyverno/sdk gzip: string(decompressed bytes))", () => {
    const compiled = compileExpression('gzip.decompress(gzip.compress(object.s))', 'variable', { params: false, dialect: 'kyverno' });
    if (!compiled.ok) throw new Error(compiled.message);
    const out = new Evaluation({ object: { s: '\ufeffa' } as never }, { budget: 1_000_000 }).evaluate(compiled.compiled);
    expect(out.ok && out.value).toBe('\ufeffa');
  });
});
