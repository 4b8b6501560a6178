/** A character JSON.stringify escapes in a string: `"`, `\`, a control character, or a surrogate if lone. */
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * False when `JSON.stringify(text)` is `"` + text + `"`: nothing to escape. True for any surrogate, paired
 * or not (telling the two apart costs more than leaving the text to JSON.stringify).
 */
export function needsJsonEscape(text: string): boolean {
  return ESCAPED.test(text);
}
