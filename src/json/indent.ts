/**
 * Re-indents compact JSON text (what JSON.stringify or jsonTextExact write) as `JSON.stringify(value,
 * null, indent)` would lay the same value out: one member or element a line, `"key": value`, empty
 * containers as `{}` and `[]`. Strings and number literals are copied as they are, so an exact integer
 * written by jsonTextExact keeps all its digits.
 */
export function indentJsonText(text: string, indent: number | string): string {
  const step = typeof indent === 'number' ? ' '.repeat(Math.min(10, Math.max(0, indent))) : indent.slice(0, 10);
  if (step === '') return text;
  let out = '';
  let depth = 0;
  const newline = () => '\n' + step.repeat(depth);
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const start = i;
      for (i++; text[i] !== '"'; i++) if (text[i] === '\\') i++;
      out += text.slice(start, i + 1);
    } else if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      if (text[i + 1] === close) {
        out += c + close;
        i++;
      } else {
        depth++;
        out += c + newline();
      }
    } else if (c === '}' || c === ']') {
      depth--;
      out += newline() + c;
    } else if (c === ',') {
      out += ',' + newline();
    } else if (c === ':') {
      out += ': ';
    } else {
      out += c;
    }
  }
  return out;
}
