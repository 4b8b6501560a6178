/**
 * `text` as V8 keeps property names: one shared copy per text (an internalized string). A `Map` compares
 * two such keys by pointer; a key cut out of a longer text (a slice, a split, a concatenation) it compares
 * character by character whenever the lengths agree, through a runtime call from 13 characters on. Worth
 * it for strings made once and used as map keys or property names many times; a property key is made
 * such a copy, and for-in gives it back.
 */
export function internalized(text: string): string {
  for (const key in { [text]: 0 }) return key;
  return text;
}
