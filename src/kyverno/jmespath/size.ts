/**
 * The length of a value as JSON text, estimated without writing it (src/json/size-estimate.ts), under the
 * name JMESPath's and Kyverno's measures use. Values built by JMESPath share subtrees — `[@, @]` nested
 * n times is n small arrays in memory but 2^n leaves as text — so the sizes of arrays and objects can be
 * remembered in `memo`, and a shared subtree is then measured once. The walk stops as soon as the total
 * passes `limit` (the result is then some number above it), so even without a memo measuring never
 * costs more than about `limit / 2` steps.
 */
export { estimatedSize as jsonSize, type SizeMemo } from '../../json/index.js';
