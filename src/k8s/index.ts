/**
 * Kubernetes API machinery (k8s.io/apimachinery) that more than one module reproduces — the CEL
 * libraries, Kyverno, policy validation, the webhook manifest and the cluster registry: a pure module,
 * no platform imports. Go's own standard library behaviour lives one layer below, in src/go.
 *
 *   quantity.ts  resource.Quantity: parse, compare, add/sub, AsInt64, AsApproximateFloat64, String()
 *   resource-names.ts  a kind's guessed REST resource: Kubernetes' UnsafeGuessKindToResource, the English plural
 *   names.ts     util/validation: DNS-1123 label/subdomain, DNS-1035 label, qualified names (label and
 *                annotation keys), label values, port names, path segment names — with Go's messages
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
export {
  isConfigMapKey,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isPathSegmentName,
  isQualifiedName,
  isValidLabelValue,
  isValidPortName,
  nameIsDNS1035Label,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
} from './names.js';
export { englishPlural, guessResource } from './resource-names.js';
export { validateConfigMap, validateSecret, type ObjectFieldError } from './config-validation.js';
export { validateObjectMeta } from './object-meta-validation.js';
