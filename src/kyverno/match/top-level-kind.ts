/**
 * The kind Kyverno matches a subresource request by: that of its top-level resource, which its webhook
 * reads from `request.resource` through discovery (pkg/webhooks/handlers/enrich.go withTopLevelGVK), not
 * `request.kind`, which for `pods/binding`, `pods/eviction`, `deployments/scale` … is the subresource's own
 * kind (Binding, Eviction, Scale). So `kinds: [Pod/binding]` selects a Binding sent for pods/binding.
 *
 * Without discovery, the built-in resources are known from the schema data, each kind's resource being
 * the plural Kubernetes derives from it (apimachinery's UnsafeGuessKindToResource); a resource no
 * built-in kind has (a custom resource's `/scale`) keeps `request.kind`.
 */
import { builtinKinds } from '../../schema/index.js';

let kindByResource: Map<string, string> | undefined;

/** `group/resource` → Kind, for every built-in kind. */
function table(): Map<string, string> {
  const out = new Map<string, string>();
  for (const gvk of builtinKinds()) {
    const [group, , kind] = gvk.split('/');
    out.set(`${group}/${pluralOf(kind)}`, kind);
  }
  return out;
}

function pluralOf(kind: string): string {
  const singular = kind.toLowerCase();
  if (singular.endsWith('endpoints')) return singular;
  if (singular.endsWith('s')) return `${singular}es`;
  if (singular.endsWith('y')) return `${singular.slice(0, -1)}ies`;
  return `${singular}s`;
}

/** The kind of the built-in resource `group`/`resource` (`''`/`pods` → `Pod`), or undefined. */
export function builtinKindOfResource(group: string, resource: string): string | undefined {
  kindByResource ??= table();
  return kindByResource.get(`${group}/${resource}`);
}
