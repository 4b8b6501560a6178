/**
 * Anchor keys of Kyverno overlays and patterns: `(key)` condition, `<(key)` global condition,
 * `+(key)` add-if-not-present, and the validate-only `X(key)` negation, `=(key)` equality,
 * `^(key)` existence.
 */

import { goTrimSpace } from '../../go/index.js';

export type AnchorType = 'condition' | 'global' | 'addIfNotPresent' | 'negation' | 'equality' | 'existence';

export interface Anchor {
  readonly type: AnchorType;
  readonly key: string;
}

const ANCHOR = /^([+<=X^])?\(([^\n]+)\)$/; // Go RE2: `.` stops at a newline only
const MODIFIERS: Record<string, AnchorType> = {
  '': 'condition',
  '<': 'global',
  '+': 'addIfNotPresent',
  X: 'negation',
  '=': 'equality',
  '^': 'existence',
};

/**
 * Keys holding `(` parsed so far, with their anchor (null: none). The pre-processing of one overlay asks
 * about each of its keys several times, and the same policies' keys come back with every review. Bounded:
 * emptied when full, and only short keys are kept: keys may also come from substituted text, and a key
 * the size of an annotation kept per review held 200 MB after 1,000 reviews (up to 4,096 of them).
 */
const parsed = new Map<string, Anchor | null>();
const PARSED_MAX = 4096;
export const PARSED_KEY_MAX = 256;

/** The anchor a map key denotes, or undefined for a plain key. */
export function parseAnchor(key: string): Anchor | undefined {
  if (!key.includes('(')) return undefined;
  let anchor = parsed.get(key);
  if (anchor === undefined) {
    const m = ANCHOR.exec(goTrimSpace(key)); // anchor.Parse: strings.TrimSpace
    anchor = m ? Object.freeze({ type: MODIFIERS[m[1] ?? ''], key: m[2] }) : null;
    if (key.length > PARSED_KEY_MAX) return anchor ?? undefined;
    if (parsed.size >= PARSED_MAX) parsed.clear();
    parsed.set(key, anchor);
  }
  return anchor ?? undefined;
}

/** The key written for `anchor` around `key` (the inverse of parseAnchor). */
export function anchorKey(anchor: Pick<Anchor, 'type'>, key: string): string {
  return `${PREFIXES[anchor.type]}(${key})`;
}

const PREFIXES = Object.fromEntries(Object.entries(MODIFIERS).map(([prefix, type]) => [type, prefix])) as Record<AnchorType, string>;

/** Condition or global condition: the anchors that decide whether an overlay applies. */
export function isConditionLike(anchor: Anchor | undefined): boolean {
  return anchor !== undefined && (anchor.type === 'condition' || anchor.type === 'global');
}

/** The validate-only anchors, which mean nothing in a mutate overlay. */
export function isValidateOnly(anchor: Anchor | undefined): boolean {
  return anchor !== undefined && (anchor.type === 'negation' || anchor.type === 'equality' || anchor.type === 'existence');
}

/** The key without its anchor decoration. */
export function stripAnchor(key: string): string {
  return parseAnchor(key)?.key ?? key;
}
