import type { Environment } from '@marcbachmann/cel-js';
import type { CelLibrary } from '../library.js';
import { publicName, traversal } from './cost.js';
import { celError, parses } from './errors.js';
import { parseQuantity, Quantity, QuantityError } from './quantity-value.js';
import { fn } from './register.js';

/**
 * Kubernetes' Quantity library (`k8s.io/apiserver/pkg/cel/library/quantity.go`).
 *
 *   quantity(string) -> Quantity, isQuantity(string) -> bool, sign(Quantity) -> int
 *   <Quantity>.isInteger(), .asInteger(), .asApproximateFloat(), .add(Quantity|int),
 *   .sub(Quantity|int), .isLessThan(Quantity), .isGreaterThan(Quantity), .compareTo(Quantity)
 *   Quantity == Quantity compares values (quantity("200M") == quantity("0.2G")).
 */

export const QUANTITY_TYPE = 'kubernetes.Quantity';

function guard<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof QuantityError) throw celError(e.message);
    throw e;
  }
}

export const quantityLibrary: CelLibrary = {
  name: 'kubernetes.quantity',
  register(env: Environment) {
    const Q = QUANTITY_TYPE;
    env.registerType(Q, { ctor: Quantity, fields: {} });
    fn(env, `quantity(string): ${Q}`, (s: string) => guard(() => parseQuantity(s)));
    fn(env, 'isQuantity(string): bool', (s: string) => parses(() => parseQuantity(s), QuantityError));
    // `sign` is a global function in Kubernetes (cel.Overload), not a method.
    fn(env, `sign(${Q}): int`, (q: Quantity) => BigInt(q.sign()));
    fn(env, `${Q}.isInteger(): bool`, (q: Quantity) => q.asInt64() !== undefined);
    fn(env, `${Q}.asInteger(): int`, (q: Quantity) => {
      const v = q.asInt64();
      if (v === undefined) throw celError('cannot convert value to integer');
      return v;
    });
    fn(env, `${Q}.asApproximateFloat(): double`, (q: Quantity) => q.asApproximateFloat());
    fn(env, `${Q}.add(${Q}): ${Q}`, (a: Quantity, b: Quantity) => guard(() => a.add(b)));
    fn(env, `${Q}.add(int): ${Q}`, (a: Quantity, b: bigint) => guard(() => a.add(Quantity.fromInt(b))));
    fn(env, `${Q}.sub(${Q}): ${Q}`, (a: Quantity, b: Quantity) => guard(() => a.sub(b)));
    fn(env, `${Q}.sub(int): ${Q}`, (a: Quantity, b: bigint) => guard(() => a.sub(Quantity.fromInt(b))));
    fn(env, `${Q}.isLessThan(${Q}): bool`, (a: Quantity, b: Quantity) => a.cmp(b) === -1);
    fn(env, `${Q}.isGreaterThan(${Q}): bool`, (a: Quantity, b: Quantity) => a.cmp(b) === 1);
    fn(env, `${Q}.compareTo(${Q}): int`, (a: Quantity, b: Quantity) => BigInt(a.cmp(b)));
    env.registerOperator(`${Q} == ${Q}`, (a: Quantity, b: Quantity) => a.cmp(b) === 0);
  },
  callCost(name, args) {
    switch (publicName(name)) {
      case 'quantity':
      case 'isQuantity':
        return args.length >= 1 ? traversal(args[0]) : undefined;
      case 'sign':
      case 'asInteger':
      case 'isInteger':
      case 'asApproximateFloat':
      case 'isGreaterThan':
      case 'isLessThan':
      case 'compareTo':
      case 'add':
      case 'sub':
        return 1;
    }
    return undefined;
  },
};
