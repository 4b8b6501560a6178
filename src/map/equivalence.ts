/**
 * Equivalent resources for `matchPolicy: Equivalent` (the API server's RESTMapper view: the same
 * resource served under several group/versions, e.g. `apps/v1` and `extensions/v1beta1` deployments).
 *
 * WEBHOOK decision: Amender cannot convert an object between API versions, so the engine uses
 * `NO_EQUIVALENTS` and matches rules against the request's own `kind`/`resource`. The API server makes
 * this right when the MutatingWebhookConfiguration lists the policies' rules with
 * `matchPolicy: Equivalent`: it converts the object to the version the webhook rule names before
 * sending it, so `request.kind/resource` is already a version the policy matches, and
 * `request.requestKind/requestResource` still tell the original. A policy whose rules name only a
 * version other than the one received does not run. A table (`tableEquivalence`) is for tests and tools
 * that evaluate matching on its own, with the equivalence list the API server would have used.
 */
import type { GroupVersionKind, GroupVersionResource } from '../admission/index.js';

export interface EquivalenceProvider {
  /** Every resource equivalent to (resource, subResource), the resource itself included. */
  equivalentResources(resource: GroupVersionResource, subResource: string): readonly GroupVersionResource[];
  /** The kind served for (resource, subResource); undefined when unknown. */
  kindFor(resource: GroupVersionResource, subResource: string): GroupVersionKind | undefined;
}

export const NO_EQUIVALENTS: EquivalenceProvider = {
  equivalentResources: (resource) => [resource],
  kindFor: () => undefined,
};

export interface EquivalentResourceEntry {
  resource: GroupVersionResource;
  subResource: string;
  kind: GroupVersionKind;
}

function sameResource(a: GroupVersionResource, b: GroupVersionResource): boolean {
  return a.group === b.group && a.version === b.version && a.resource === b.resource;
}

/**
 * An equivalence from a table: entries with the same resource name and subresource are equivalent to
 * one another (all `deployments` group/versions, all `deployments/scale`).
 */
export function tableEquivalence(entries: readonly EquivalentResourceEntry[]): EquivalenceProvider {
  return {
    equivalentResources(resource, subResource) {
      const known = entries.some((e) => e.subResource === subResource && sameResource(e.resource, resource));
      if (!known) return [resource];
      return entries.filter((e) => e.subResource === subResource && e.resource.resource === resource.resource).map((e) => e.resource);
    },
    kindFor(resource, subResource) {
      return entries.find((e) => e.subResource === subResource && sameResource(e.resource, resource))?.kind;
    },
  };
}

/** Whether the provider names no resource equivalent to (resource, subResource) but the resource itself. */
export function onlyItself(provider: EquivalenceProvider, resource: GroupVersionResource, subResource: string): boolean {
  const equivalents = provider.equivalentResources(resource, subResource);
  for (let i = 0; i < equivalents.length; i++) if (!sameResource(equivalents[i], resource)) return false;
  return true;
}

export { sameResource };
