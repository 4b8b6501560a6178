/**
 * parseJson's refusals are worded by Amender, not by V8: the native parser's message differs between
 * Node 20, Node 24 and workerd, and a review must get the same 400 on every runtime (fuzz-runtimes.test.ts
 * sends the same bytes to all three). Whatever the text, parseJson refuses exactly what JSON.parse refuses.
 */
import { describe, expect, it } from 'vitest';
import { JsonParseError, parseJson } from '../../src/json/index.js';
import { refusal } from './helpers.js';
import { Prng } from '../reliability/helpers/prng.js';

describe('parseJson refusals', () => {
  it.each([
    ['', 'Unexpected end of JSON input'],
    ['{"kind":', 'Unexpected end of JSON input'],
    ['{"kind":"Adm', 'Unexpected end of JSON input'],
    ['[1, 2', 'Unexpected end of JSON input'],
    ['{"a":1}}', "Unexpected character '}', expected the end after the JSON value, at position 7"],
    ['{"a":1} x', "Unexpected character 'x', expected the end after the JSON value, at position 8"],
    ['{"a" 1}', "Unexpected character '1', expected ':', at position 5"],
    ['{a:1}', "Unexpected character 'a', expected a property name, at position 1"],
    ['{"a":1,}', "Unexpected character '}', expected a property name, at position 7"],
    ['[1,]', "Unexpected character ']', expected a JSON value, at position 3"],
    ['[1 2]', "Unexpected character '2', expected ',' or ']', at position 3"],
    ['{"a":1 "b":2}', "Unexpected character '\"', expected ',' or '}', at position 7"],
    ['{"a":tru}', "Unexpected character 't', expected a JSON value, at position 5"],
    ['{"a":01}', "Unexpected character '1', expected ',' or '}', at position 6"],
    ['\u0000', "Unexpected character '\\u0000', expected a JSON value, at position 0"],
    ['\ufeff{}', "Unexpected character '\\ufeff', expected a JSON value, at position 0"],
    ['{"a":"x\u0000"}', "Bad control character '\\u0000' in string literal at position 7"],
    ['{"a":"x\ny"}', "Bad control character '\\n' in string literal at position 7"],
    ['{"a":"\\q"}', 'Bad escape "\\\\q" in string literal at position 6'],
    ['{"a":"\\u12g4"}', 'Bad escape "\\\\u12g4" in string literal at position 6'],
    ['{"a":"\\u12"}', 'Bad escape "\\\\u12\\"}" in string literal at position 6'],
  ])('%j: %s', (text, message) => {
    expect(refusal(text)).toBe(message);
  });

  it('words a refusal the same whether the native or the exact parser read the text', () => {
    // An integral float (1.0) sends the text to the exact parser; without it, the native parser runs first.
    expect(refusal('{"a":1,"b":[1 2]}')).toBe("Unexpected character '2', expected ',' or ']', at position 14");
    expect(refusal('{"a":1.0,"b":[1 2]}')).toBe("Unexpected character '2', expected ',' or ']', at position 16");
  });

  it('refuses exactly what JSON.parse refuses, over damaged real texts', () => {
    const texts = [
      JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u', object: { metadata: { name: 'a\u00e9\ud83d\ude00', labels: { x: 'y"z\\' } }, spec: { n: [1, -2.5, 3e4, true, false, null, {}, []] } } } }),
      '{"a":"\\u00e9\\n\\t\\"\\\\\\/","b":[ 1 , 2 ],"c":{ }}',
    ];
    const pieces = ['', ' ', '"', '\\', '{', '}', '[', ']', ':', ',', '0', '-', '.', 'e', 't', 'n', '\u0000', '\n', '\\u', '\\x', '\ud800', '1.0'];
    const rng = new Prng(0x1501);
    let refused = 0;
    for (let n = 0; n < 20_000; n++) {
      let t = rng.pick(texts);
      for (let k = 1 + rng.int(3); k > 0; k--) {
        const at = rng.int(t.length + 1);
        const cut = rng.int(3);
        t = t.slice(0, at) + rng.pick(pieces) + t.slice(at + cut);
      }
      let native: unknown;
      let nativeRefused = false;
      try {
        native = JSON.parse(t);
      } catch {
        nativeRefused = true;
      }
      let ours: unknown;
      let oursRefused = false;
      try {
        ours = parseJson(t);
      } catch (err) {
        expect(err, t).toBeInstanceOf(JsonParseError);
        // A number past the double range is refused where JSON.parse reads Infinity.
        if (!nativeRefused) expect((err as Error).message, t).toMatch(/out of the range of a double/);
        oursRefused = true;
      }
      if (nativeRefused) {
        expect(oursRefused, t).toBe(true);
        refused++;
      } else if (!oursRefused) expect(ours, t).toEqual(native);
    }
    expect(refused).toBeGreaterThan(5_000);
  });
});
