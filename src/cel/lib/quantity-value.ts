/**
 * The CEL value of a Kubernetes quantity (`kubernetes.Quantity`): a value class around the shared
 * `resource.Quantity` port in src/k8s (parsing, exact arithmetic and comparison, the int64 versus
 * decimal form that `isInteger()` reveals, the canonical text). Its own fields are the quantity's
 * state, which `Object{…}` equality compares field by field as Go's DeepEqual does.
 */

import {
  addQuantities,
  compareQuantities,
  formatQuantity,
  int64Quantity,
  parseQuantity as parseK8sQuantity,
  quantityApproximateFloat,
  quantityAsInt64,
  subQuantities,
  type Quantity as K8sQuantity,
  type QuantityFormat,
} from '../../k8s/index.js';

export { ERR_FORMAT_WRONG, ERR_NUMERIC, ERR_SUFFIX, QUANTITY_REGEXP, QuantityError, type QuantityFormat } from '../../k8s/index.js';

export class Quantity implements K8sQuantity {
  readonly celTypeName = 'kubernetes.Quantity';

  constructor(
    readonly unscaled: bigint,
    readonly scale: number,
    readonly format: QuantityFormat,
    readonly decimal: boolean,
    readonly text: string | undefined,
    /**
     * Go's `*Quantity`: Kubernetes' add() and sub() return a pointer (library/quantity.go), quantity()
     * a value, and Quantity.Equal accepts only a value (`other.(Quantity)`), so a sum on the right of
     * `==` is "no such overload". An own field, so Object{…} equality (DeepEqual) tells the two apart too.
     */
    readonly pointer = false,
  ) {}

  static of(q: K8sQuantity, pointer = false): Quantity {
    return new Quantity(q.unscaled, q.scale, q.format, q.decimal === true, q.text, pointer);
  }

  /** resource.NewQuantity(v, DecimalExponent). */
  static fromInt(v: bigint): Quantity {
    return Quantity.of(int64Quantity(v));
  }

  sign(): -1 | 0 | 1 {
    return this.unscaled > 0n ? 1 : this.unscaled < 0n ? -1 : 0;
  }

  isZero(): boolean {
    return this.unscaled === 0n;
  }

  cmp(other: Quantity): -1 | 0 | 1 {
    return compareQuantities(this, other);
  }

  /** Undefined (no such overload) for another type or a `*Quantity`, as Kubernetes' Quantity.Equal. */
  celEquals(other: unknown): boolean | undefined {
    return other instanceof Quantity && !other.pointer ? compareQuantities(this, other) === 0 : undefined;
  }

  /** Go's AsInt64: only the int64 form converts, and only without a fractional scale. */
  asInt64(): bigint | undefined {
    return quantityAsInt64(this);
  }

  /** Go's AsApproximateFloat64. */
  asApproximateFloat(): number {
    return quantityApproximateFloat(this);
  }

  add(y: Quantity): Quantity {
    return Quantity.of(addQuantities(this, y), true);
  }

  sub(y: Quantity): Quantity {
    return Quantity.of(subQuantities(this, y), true);
  }

  /** apimachinery's Quantity.String(). */
  toString(): string {
    return formatQuantity(this);
  }
}

/** resource.ParseQuantity as a CEL value. Throws QuantityError with the reference's error text. */
export function parseQuantity(str: string): Quantity {
  return Quantity.of(parseK8sQuantity(str));
}
