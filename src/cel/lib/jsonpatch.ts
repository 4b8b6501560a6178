import { escapeToken } from '../../jsonpatch/index.js';
import type { CelLibrary, LibraryRegistrar } from '../library.js';
import { traversal } from './cost.js';

/**
 * Kubernetes' JSONPatch helper library (`k8s.io/apiserver/pkg/cel/library/jsonpatch.go`), available
 * to mutation expressions:
 *
 *   jsonpatch.escapeKey(string) -> string   ('~' -> '~0', '/' -> '~1', RFC 6901)
 */

export const jsonPatchLibrary: CelLibrary = {
  name: 'kubernetes.jsonpatch',
  register(r: LibraryRegistrar) {
    r.registerFunction('jsonpatch.escapeKey(string): string', escapeToken, { pure: true });
  },
  callCost(name, args) {
    return name === 'jsonpatch.escapeKey' && args.length >= 1 ? traversal(args[0]) : undefined;
  },
};
