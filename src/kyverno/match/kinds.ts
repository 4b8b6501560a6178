/**
 * `kinds` entries of match/exclude blocks (kubeutils.ParseKindSelector): `Kind`, `version/Kind`,
 * `group/version/Kind`, each optionally followed by `/subresource` (or `.subresource` on the kind),
 * `*` wildcards anywhere, and `*` + `/` + `*` for every resource and subresource.
 */
import { wildcardMatch } from '../../go/index.js';
import type { KindSelector } from '../types.js';

const VERSION = /^(v\d+((alpha|beta)\d+)?|\*)$/;

export function parseKindSelector(input: string): KindSelector | undefined {
  let parts = input.split('/');
  parts = [...parts.slice(0, -1), ...parts[parts.length - 1].split('.')];
  const k = (group: string, version: string, kind: string, subresource: string): KindSelector | undefined =>
    kind === '' ? undefined : { group, version, kind, subresource };
  switch (parts.length) {
    case 1:
      return k('*', '*', parts[0], '');
    case 2:
      if (parts[0] === '*' && parts[1] === '*') return k('*', '*', '*', '*');
      if (parts[0] === '*' && parts[1].toLowerCase() === parts[1]) return k('*', '*', parts[0], parts[1]);
      if (VERSION.test(parts[0])) return k('*', parts[0], parts[1], '');
      return k('*', '*', parts[0], parts[1]);
    case 3:
      if (VERSION.test(parts[0])) return k('*', parts[0], parts[1], parts[2]);
      return k(parts[0], parts[1], parts[2], '');
    case 4:
      return k(parts[0], parts[1], parts[2], parts[3]);
    default:
      return undefined;
  }
}

/** The kind name of a `kinds` entry, without group, version or subresource (`apps/v1/Deployment` → `Deployment`). */
export function kindName(input: string): string {
  return parseKindSelector(input)?.kind ?? input;
}

/** A kind a policy set knows of: built in, or declared by a CustomResourceDefinition (any version). */
export interface KnownKind {
  readonly group: string;
  /** Undefined: any version (a CRD's kind). */
  readonly version?: string;
  readonly kind: string;
}

/**
 * Whether a `kinds` entry selects at least one known kind; false is what a typo looks like (`Pods`,
 * `apps/v1/Deploymnet`), or a custom kind whose CRD the policy set lacks. Subresources are not checked.
 */
export function kindSelectorKnown(selector: KindSelector, known: readonly KnownKind[]): boolean {
  if (selector.kind === '*') return true;
  return known.some(
    (k) => wildcardMatch(selector.kind, k.kind) && wildcardMatch(selector.group, k.group) && (k.version === undefined || wildcardMatch(selector.version, k.version)),
  );
}
