/**
 * Go's encoding/pem.Decode, as Kyverno's x509_decode calls it: the first block that decodes, skipping
 * whatever does not (a begin line not ending in `-----`, an end line of another type or with text after
 * it, a body that is not base64); headers (`Key: value` lines after the begin line) are read past.
 *
 * Go searches the rest of the text for an end line from every begin line, and decodes the body up to it:
 * quadratic in a text of many begin lines (a review string of 40,000 took 7.4 s with the RegExp this
 * replaced). Here the end lines are found once, and a body is decoded only when every character of it may
 * be base64 (a `-` of the next begin line stops that scan), so the work is linear in the text.
 */
import { base64Decode } from './base64.js';
import { B64_INDEX } from './der.js';

const BEGIN = '-----BEGIN ';
const LINE_BEGIN = `\n${BEGIN}`;
const END = '-----END ';
const LINE_END = `\n${END}`;
const DASHES = '-----';

/** Go's getLine from `from`: where the line's text ends (trailing spaces and tabs, and a CR before the LF, left out) and where the next line starts. */
function lineAt(text: string, from: number): { end: number; next: number } {
  const lf = text.indexOf('\n', from);
  let end = lf < 0 ? text.length : lf;
  const next = lf < 0 ? text.length : lf + 1;
  if (lf > from && text.charCodeAt(lf - 1) === 0x0d) end--;
  while (end > from && (text.charCodeAt(end - 1) === 0x20 || text.charCodeAt(end - 1) === 0x09)) end--;
  return { end, next };
}

/** Does the line [from, end) hold a colon (a header, `Key: value`)? */
function holdsColon(text: string, from: number, end: number): boolean {
  for (let i = from; i < end; i++) if (text.charCodeAt(i) === 0x3a) return true;
  return false;
}

/** May every character of [from, end) be part of base64 text (the alphabet, padding, blanks and line breaks)? */
function mayBeBase64(text: string, from: number, end: number): boolean {
  for (let i = from; i < end; i++) {
    const c = text[i];
    if (c !== '=' && c !== ' ' && c !== '\t' && c !== '\r' && c !== '\n' && !B64_INDEX.has(c)) return false;
  }
  return true;
}

/** Where each `\n-----END ` starts, ascending. */
function endLines(text: string): number[] {
  const ends: number[] = [];
  for (let at = text.indexOf(LINE_END); at >= 0; at = text.indexOf(LINE_END, at + 1)) ends.push(at);
  return ends;
}

/** encoding/pem.Decode: the first block's type and bytes, or undefined when there is none. */
export function pemDecode(text: string): { type: string; bytes: Uint8Array } | undefined {
  let rest = 0;
  let ends: number[] | undefined;
  let nextEnd = 0; // into `ends`: `rest` only moves forward, and so does the first end line after it
  for (;;) {
    if (text.startsWith(BEGIN, rest)) {
      rest += BEGIN.length;
    } else {
      const at = text.indexOf(LINE_BEGIN, rest);
      if (at < 0) return undefined;
      rest = at + LINE_BEGIN.length;
    }
    const typeLine = lineAt(text, rest);
    const typeStart = rest;
    rest = typeLine.next;
    if (typeLine.end - typeStart < DASHES.length || !text.startsWith(DASHES, typeLine.end - DASHES.length)) continue;
    const type = text.slice(typeStart, typeLine.end - DASHES.length);
    let headers = 0;
    for (;;) {
      if (rest >= text.length) return undefined;
      const line = lineAt(text, rest);
      if (!holdsColon(text, rest, line.end)) break;
      headers++;
      rest = line.next;
    }
    let endIndex: number;
    let trailer: number;
    if (headers === 0 && text.startsWith(END, rest)) {
      // An empty block: the end line right after the begin line.
      endIndex = rest;
      trailer = rest + END.length;
    } else {
      ends ??= endLines(text);
      while (nextEnd < ends.length && ends[nextEnd] < rest) nextEnd++;
      if (nextEnd === ends.length) continue;
      endIndex = ends[nextEnd];
      trailer = endIndex + LINE_END.length;
    }
    // The end line: the same type, five dashes, then nothing but blanks on the line.
    const afterTrailer = trailer + type.length + DASHES.length;
    if (afterTrailer > text.length || !text.startsWith(type, trailer) || !text.startsWith(DASHES, trailer + type.length)) continue;
    if (lineAt(text, afterTrailer).end !== afterTrailer) continue;
    if (!mayBeBase64(text, rest, endIndex)) continue;
    let bytes: Uint8Array;
    try {
      bytes = base64Decode(text.slice(rest, endIndex).replace(/[ \t]+/g, ''), true);
    } catch {
      continue;
    }
    return { type, bytes };
  }
}
