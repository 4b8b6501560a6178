/**
 * Kubernetes API machinery that both policy engines reproduce (the CEL libraries in src/cel and
 * Kyverno's Go helpers in src/kyverno/go): a pure module, no platform imports.
 *
 *   quantity.ts  resource.Quantity: parse, compare, add/sub, AsInt64, AsApproximateFloat64, String()
 *   calendar.ts  the proleptic Gregorian day arithmetic of Go's time package (metav1.Time)
 */
export {
  compareQuantities,
  addQuantities,
  subQuantities,
  decimalQuantity,
  ERR_FORMAT_WRONG,
  ERR_NUMERIC,
  ERR_SUFFIX,
  ERR_TOO_LARGE,
  formatQuantity,
  goPow10,
  int64Quantity,
  MAX_POW10,
  parseQuantity,
  powerOfTen,
  QUANTITY_REGEXP,
  quantityApproximateFloat,
  quantityAsInt64,
  QuantityError,
  quantityParseError,
  quantitySign,
  tryParseQuantity,
  type Quantity,
  type QuantityFormat,
} from './quantity.js';
export { civilFromDays, daysFromCivil, daysInMonth, isLeapYear, type CivilDate } from './calendar.js';
