/**
 * The REST resource (plural) a kind is guessed to be served as, when no CustomResourceDefinition says.
 */

/** The plural Kubernetes guesses for a kind (apimachinery's UnsafeGuessKindToResource). */
export function guessResource(kind: string): string {
  const singular = kind.toLowerCase();
  if (singular.endsWith('endpoints')) return singular;
  if (singular.endsWith('s')) return `${singular}es`;
  if (singular.endsWith('y')) return `${singular.slice(0, -1)}ies`;
  return `${singular}s`;
}

/**
 * The plural a CustomResourceDefinition most likely declares: the English one its generators write
 * (controller-gen pluralises the lower-case kind: `Gateway` → `gateways`, `Proxy` → `proxies`,
 * `Ingress` → `ingresses`), which Kubernetes' guess misses for a vowel before a final y (`gatewaies`).
 */
export function englishPlural(kind: string): string {
  const lower = kind.toLowerCase();
  if (/(s|x|z|ch|sh)$/.test(lower)) return `${lower}es`;
  if (/[^aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}
