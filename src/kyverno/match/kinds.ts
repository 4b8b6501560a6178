/**
 * `kinds` entries of match/exclude blocks (kubeutils.ParseKindSelector): `Kind`, `version/Kind`,
 * `group/version/Kind`, each optionally followed by `/subresource` (or `.subresource` on the kind),
 * `*` wildcards anywhere, and `*` + `/` + `*` for every resource and subresource.
 */
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
