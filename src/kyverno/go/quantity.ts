/**
 * Kubernetes quantities as Kyverno uses them: k8s.io/apimachinery's resource.Quantity (src/k8s:
 * ParseQuantity, Cmp, Add/Sub, AsApproximateFloat64, String()) plus the inf.Dec arithmetic of
 * Kyverno's `multiply` and `divide` (pkg/engine/jmespath/arithmetic.go), whose results it prints
 * through NewDecimalQuantity(…, format).String(). A value is unscaled / 10^scale (inf.Dec's
 * convention); `scale` is the inf.Dec scale Kyverno's `divide` rounds at.
 */
import { decimalQuantity, powerOfTen, quantityApproximateFloat, type Quantity, type QuantityFormat } from '../../k8s/index.js';

export {
  addQuantities,
  compareQuantities,
  formatQuantity,
  parseQuantity,
  QuantityError,
  subQuantities,
  tryParseQuantity,
  type Quantity,
  type QuantityFormat,
} from '../../k8s/index.js';

/** Quantity.AsApproximateFloat64 (Go's table-based math.Pow10). */
export const approximateFloat: (q: Quantity) => number = quantityApproximateFloat;

/** inf.Dec Mul (unscaled product, scales added) as NewDecimalQuantity(prod, format). */
export function mulQuantities(a: Quantity, b: Quantity, format: QuantityFormat): Quantity {
  return decimalQuantity(a.unscaled * b.unscaled, a.scale + b.scale, format);
}

/**
 * inf.Dec QuoRound(a, b, scale, RoundDown) as NewDecimalQuantity(quo, format): truncation toward
 * zero at `scale` decimals. Throws QuantityError when the shift exceeds the exact-digit limit.
 */
export function quoRoundDown(a: Quantity, b: Quantity, scale: number, format: QuantityFormat): Quantity {
  // a/b = (ua / 10^sa) / (ub / 10^sb); the unscaled result is ua · 10^(scale - sa + sb) / ub
  const shift = scale - a.scale + b.scale;
  let num = a.unscaled;
  let den = b.unscaled;
  if (shift >= 0) num *= powerOfTen(shift);
  else den *= powerOfTen(-shift);
  return decimalQuantity(num / den, scale, format);
}
