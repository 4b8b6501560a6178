/**
 * Kyverno's ReplaceAllVars table (replace-all-vars-tables.json, data transcribed from kyverno/kyverno @
 * 111e07bbecc6: pkg/engine/variables/vars_test.go Test_ReplaceAllVars): every variable replaced by one
 * word, escaped ones kept, inner ones only where variables nest. Policy validation decodes a JSON patch
 * text with its variables replaced so.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { replaceVariables } from '../../../src/kyverno/context/variable-syntax.js';

interface Case {
  source: string;
  text: string;
  replacement: string;
  result: string;
}

const cases = JSON.parse(readFileSync(new URL('./replace-all-vars-tables.json', import.meta.url), 'utf8')) as Case[];

describe("Kyverno's ReplaceAllVars table", () => {
  it(`${cases[0].source} (${cases.length} cases)`, () => {
    const wrong = cases.filter((c) => replaceVariables(c.text, c.replacement) !== c.result);
    expect(wrong.map((c) => `${c.text} → ${replaceVariables(c.text, c.replacement)}, expected ${c.result}`)).toEqual([]);
  });
});
