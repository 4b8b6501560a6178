/**
 * The kind Kyverno matches a subresource request by: that of its top-level resource, which its webhook
 * reads from `request.resource` through discovery (pkg/webhooks/handlers/enrich.go withTopLevelGVK), not
 * `request.kind`, which for `pods/binding`, `pods/eviction`, `deployments/scale` … is the subresource's own
 * kind (Binding, Eviction, Scale). So `kinds: [Pod/binding]` selects a Binding sent for pods/binding.
 *
 * Without discovery, the built-in resources are known from the schema data, each kind's resource being
 * the plural Kubernetes derives from it (apimachinery's UnsafeGuessKindToResource); a custom resource's
 * (`foos/scale`) is looked up in the policy set's CRDs (KyvernoInput.resourceKind), else keeps `request.kind`.
 */
import { guessResource } from '../../k8s/index.js';
import { builtinKinds } from '../../schema/index.js';

let kindByResource: Map<string, string> | undefined;

/** `group/resource` → Kind, for every built-in kind. */
function table(): Map<string, string> {
  const out = new Map<string, string>();
  for (const gvk of builtinKinds()) {
    const [group, , kind] = gvk.split('/');
    out.set(`${group}/${guessResource(kind)}`, kind);
  }
  return out;
}

/** The kind of the built-in resource `group`/`resource` (`''`/`pods` → `Pod`), or undefined. */
export function builtinKindOfResource(group: string, resource: string): string | undefined {
  kindByResource ??= table();
  return kindByResource.get(`${group}/${resource}`);
}
