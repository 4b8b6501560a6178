import type { Environment } from '@marcbachmann/cel-js';
import type { CelLibrary } from '../library.js';
import { traversal } from './cost.js';
import { callArgs, fn, namespace } from './register.js';

/**
 * Kubernetes' JSONPatch helper library (`k8s.io/apiserver/pkg/cel/library/jsonpatch.go`), available
 * to mutation expressions:
 *
 *   jsonpatch.escapeKey(string) -> string   ('~' -> '~0', '/' -> '~1', RFC 6901)
 */

/** Escapes a JSON Pointer reference token in one pass: `k8s.io/x~y` -> `k8s.io~1x~0y`. */
export function escapeKey(key: string): string {
  return key.replace(/[~/]/g, (c) => (c === '~' ? '~0' : '~1'));
}

const NS = 'kubernetes.jsonpatch.Namespace';

export const jsonPatchLibrary: CelLibrary = {
  name: 'kubernetes.jsonpatch',
  register(env: Environment) {
    namespace(env, 'jsonpatch', NS);
    fn(env, `${NS}.escapeKey(string): string`, (_: unknown, key: string) => escapeKey(key));
  },
  callCost(name, rawArgs) {
    const args = callArgs(rawArgs);
    if ((name === 'escapeKey' && args !== rawArgs) || name === 'jsonpatch.escapeKey') {
      return args.length >= 1 ? traversal(args[0]) : undefined;
    }
    return undefined;
  },
};
