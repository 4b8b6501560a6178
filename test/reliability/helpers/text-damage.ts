/**
 * Expression text damaged the way a half-edited policy is: in one to three places, a token of the language
 * inserted, characters cut out, or a piece of another expression of the corpus spliced in. Shared by the
 * CEL and JMESPath sweeps, each with its own tokens.
 */
import type { Prng } from './prng.js';

export function damagedText(rng: Prng, text: string, tokens: readonly string[], corpus: readonly string[]): string {
  let e = text;
  for (let n = 1 + rng.int(3); n > 0; n--) {
    const at = rng.int(e.length + 1);
    const kind = rng.int(3);
    if (kind === 0) e = e.slice(0, at) + tokens[rng.int(tokens.length)] + e.slice(at);
    else if (kind === 1) e = e.slice(0, at) + e.slice(at + 1 + rng.int(4));
    else {
      const other = corpus[rng.int(corpus.length)];
      const from = rng.int(other.length);
      e = e.slice(0, at) + other.slice(from, from + 1 + rng.int(30)) + e.slice(at);
    }
  }
  return e;
}
