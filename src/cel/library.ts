import type { Environment } from '@marcbachmann/cel-js';

/**
 * A Kubernetes CEL library (quantity, ip, cidr, semver, url, format, regex, lists, authz, jsonpatch):
 * registers its types and functions on a cel-js Environment and tells the cost tracker what each call
 * costs in cel-go/Kubernetes units (see `k8s.io/apiserver/pkg/cel/library/cost.go`).
 */
export interface CelLibrary {
  readonly name: string;
  /** Registers the library's types, functions and operators. */
  register(env: Environment): void;
  /**
   * Runtime cost of one call of `fn` (the function or method name as registered), given its arguments
   * and result, or undefined for the default call cost of 1.
   */
  callCost?(fn: string, args: readonly unknown[], result: unknown): number | undefined;
}
