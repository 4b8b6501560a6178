import type { JsonValue } from '../json/index.js';

/** One decoded RFC 6902 operation. Paths are JSON pointers as written (decoded per flavour when applied). */
export type Operation =
  | { op: 'add'; path: string; value: JsonValue }
  | { op: 'remove'; path: string }
  | { op: 'replace'; path: string; value: JsonValue }
  | { op: 'move'; from: string; path: string }
  | { op: 'copy'; from: string; path: string }
  | {
      op: 'test';
      path: string;
      value: JsonValue;
      /**
       * evanphx-v4 only: the operation has no `value` (Go's nil node), which is not the same as `value:
       * null` there (see apply-evanphx.ts test).
       */
      valueAbsent?: true;
    };

export type OperationName = Operation['op'];

/**
 * Which reference applier's rules to follow.
 * - `rfc6902`: strict RFC 6902 / RFC 6901 (what we hold our reply patches to).
 * - `evanphx-v4`: gopkg.in/evanphx/json-patch.v4, the applier kube-apiserver uses for MutatingAdmissionPolicy.
 * - `evanphx-v5`: github.com/evanphx/json-patch/v5 (v5.9.11), the applier Kyverno uses.
 */
export type PatchEngine = 'rfc6902' | 'evanphx-v4' | 'evanphx-v5';

export interface ApplyOptions {
  engine: PatchEngine;
  /** evanphx: `-k` addresses `len-k` (for `add`, `len+1-k`). The Go libraries default to true. */
  supportNegativeIndices?: boolean;
  /** evanphx-v5: `remove` of a path that does not resolve is a no-op. */
  allowMissingPathOnRemove?: boolean;
  /** evanphx-v5: `add` creates missing intermediate objects/arrays (array when the next segment is an index). */
  ensurePathExistsOnAdd?: boolean;
  /**
   * Most array slots `ensurePathExistsOnAdd` may fill with nulls for one path (the Go library has no bound
   * and would allocate whatever a hostile index asks for). Default 10 000.
   */
  maxArrayPadding?: number;
}

/**
 * The named behaviours callers choose from:
 * - `kubernetes`: MutatingAdmissionPolicy JSONPatch (evanphx v4, negative indices).
 * - `kyverno`: Kyverno patchesJson6902 (evanphx v5 with the three options Kyverno sets).
 * - `rfc6902`: strict RFC 6902.
 */
export type Flavour = 'kubernetes' | 'kyverno' | 'rfc6902';

const FLAVOURS: Readonly<Record<Flavour, Readonly<ApplyOptions>>> = Object.freeze({
  kubernetes: Object.freeze({ engine: 'evanphx-v4', supportNegativeIndices: true }),
  kyverno: Object.freeze({
    engine: 'evanphx-v5',
    supportNegativeIndices: true,
    allowMissingPathOnRemove: true,
    ensurePathExistsOnAdd: true,
  }),
  rfc6902: Object.freeze({ engine: 'rfc6902' }),
});

export function resolveOptions(flavour: Flavour | ApplyOptions): Readonly<ApplyOptions> {
  return typeof flavour === 'string' ? FLAVOURS[flavour] : flavour;
}

/**
 * Outcome of applying a patch. Nothing is ever partly applied: on failure the input is untouched and no
 * document is returned.
 * - `test-failed`: a `test` op compared unequal. MutatingAdmissionPolicy discards the whole patch without
 *   error on this; other callers treat it as an error.
 * - `error`: any other failure (missing path, bad index, …), with the reference library's message where
 *   it has one.
 */
export type ApplyResult =
  | { ok: true; doc: JsonValue }
  | { ok: false; kind: 'test-failed' | 'error'; message: string; opIndex: number };

export type DecodeResult = { ok: true; patch: Operation[] } | { ok: false; message: string; opIndex?: number };
