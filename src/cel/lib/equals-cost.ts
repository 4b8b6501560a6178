import { AuthorizerValue, DecisionValue, GroupCheckValue, PathCheckValue, ResourceCheckValue } from './authz.js';
import { NamedFormat } from './k8s-format.js';
import { CIDRValue, IPValue } from './net.js';
import { Quantity } from './quantity-value.js';
import { Semver } from './semver.js';
import { URLValue } from './url.js';

/**
 * The cost of `left == right` in Kubernetes' environments when `left` is one of Kubernetes' library
 * values: 1, whatever the sizes (apiserver pkg/cel/library/cost.go CallCost '_==_'). Otherwise
 * undefined: cel-go's traversal of the smaller operand, which `!=` always costs (cost.go has no case for
 * it), so ip('::1') != ip('::1') costs ceil(16 * 0.1) = 2 where == costs 1.
 */
export function kubernetesEqualsCost(left: unknown): number | undefined {
  if (typeof left !== 'object' || left === null) return undefined;
  return left instanceof Quantity ||
    left instanceof IPValue ||
    left instanceof CIDRValue ||
    left instanceof NamedFormat ||
    left instanceof URLValue ||
    left instanceof Semver ||
    left instanceof AuthorizerValue ||
    left instanceof PathCheckValue ||
    left instanceof GroupCheckValue ||
    left instanceof ResourceCheckValue ||
    left instanceof DecisionValue
    ? 1
    : undefined;
}
