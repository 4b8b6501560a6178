import type { CelLibrary, LibraryRegistrar } from '../library.js';
import { traversal } from './cost.js';
import { celError, parses } from './errors.js';
import { parseQuantity, Quantity, QuantityError } from './quantity-value.js';

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
  register(r: LibraryRegistrar) {
    const Q = QUANTITY_TYPE;
    r.registerType(Q, Quantity);
    r.registerFunction(`quantity(string): ${Q}`, (s: string) => guard(() => parseQuantity(s)));
    r.registerFunction('isQuantity(string): bool', (s: string) => parses(() => parseQuantity(s), QuantityError));
    // `sign` is a global function in Kubernetes (cel.Overload), not a method.
    r.registerFunction(`sign(${Q}): int`, (q: Quantity) => BigInt(q.sign()));
    r.registerFunction(`${Q}.isInteger(): bool`, (q: Quantity) => q.asInt64() !== undefined);
    r.registerFunction(`${Q}.asInteger(): int`, (q: Quantity) => {
      const v = q.asInt64();
      if (v === undefined) throw celError('cannot convert value to integer');
      return v;
    });
    r.registerFunction(`${Q}.asApproximateFloat(): double`, (q: Quantity) => q.asApproximateFloat());
    r.registerFunction(`${Q}.add(${Q}): ${Q}`, (a: Quantity, b: Quantity) => guard(() => a.add(b)));
    r.registerFunction(`${Q}.add(int): ${Q}`, (a: Quantity, b: bigint) => guard(() => a.add(Quantity.fromInt(b))));
    r.registerFunction(`${Q}.sub(${Q}): ${Q}`, (a: Quantity, b: Quantity) => guard(() => a.sub(b)));
    r.registerFunction(`${Q}.sub(int): ${Q}`, (a: Quantity, b: bigint) => guard(() => a.sub(Quantity.fromInt(b))));
    r.registerFunction(`${Q}.isLessThan(${Q}): bool`, (a: Quantity, b: Quantity) => a.cmp(b) === -1);
    r.registerFunction(`${Q}.isGreaterThan(${Q}): bool`, (a: Quantity, b: Quantity) => a.cmp(b) === 1);
    r.registerFunction(`${Q}.compareTo(${Q}): int`, (a: Quantity, b: Quantity) => BigInt(a.cmp(b)));
  },
  callCost(name, args) {
    switch (name) {
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
