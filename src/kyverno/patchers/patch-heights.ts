/**
 * How tall a rule's patches can have made its resource, so that the rule's outcome (../rule.ts) skips
 * walking the result for the depth bound when no patch can have reached it. Every node a patch leaves
 * sits at a path it had before or at a path the patch itself names:
 * - a strategic merge puts each node where it is in the resource or in the (anchor-resolved) overlay,
 *   so the result is no taller than the taller of the two;
 * - an `add` or `replace` puts its value below its path's segments (an `add` creates the missing parents
 *   along them), so no taller than the segments plus the value (the path's length is taken for its
 *   segments: a bound too, and a long path only means the walk is made); `remove` and `test` put nothing;
 * - `move` and `copy` put a value of the document somewhere else: not bounded here.
 * When the rule's input fits (as checkJsonDepth takes its `before` to) and every patch's bound fits, so
 * does the result, and the walk could find nothing.
 */
import { DEFAULT_MAX_DEPTH, heightUpTo, type JsonValue } from '../../json/index.js';
import type { Operation } from '../../jsonpatch/index.js';

export class PatchHeights {
  /** The tallest the patches since `start` may have made the resource (Infinity: not bounded). */
  private tallest = 0;

  /** A rule starts: no patch yet. */
  start(): void {
    this.tallest = 0;
  }

  /** A strategic merge of this overlay, anchors resolved. */
  merged(overlay: JsonValue): void {
    this.raise(heightUpTo(overlay, DEFAULT_MAX_DEPTH));
  }

  /** JSON patch operations (their paths are JSON pointers, or ""). */
  patched(ops: readonly Operation[]): void {
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i];
      // A pointer's length bounds its segments (each starts with a `/`): cheaper than counting them.
      if (op.op === 'add' || op.op === 'replace') this.raise(op.path.length + heightUpTo(op.value, DEFAULT_MAX_DEPTH));
      else if (op.op === 'move' || op.op === 'copy') this.tallest = Infinity;
    }
  }

  /** No patch since `start` can have made the resource taller than DEFAULT_MAX_DEPTH. */
  fit(): boolean {
    return this.tallest <= DEFAULT_MAX_DEPTH;
  }

  private raise(height: number): void {
    if (height > this.tallest) this.tallest = height;
  }
}
