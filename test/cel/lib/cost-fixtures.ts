/** Values and a cost lookup for cost.test.ts. */
import { createAuthorizerValue, libraries, parseQuantity, type Quantity } from '../../../src/cel/lib/index.js';
import { CONSTANT_FORMATS, type NamedFormat } from '../../../src/cel/lib/k8s-format.js';
import { parseCIDR, parseIP, type CIDRValue, type IPValue } from '../../../src/cel/lib/net.js';

/** The first library's answer, in registration order (what an engine charges). */
export function costOf(fn: string, args: unknown[], result: unknown): number | undefined {
  for (const lib of libraries) {
    const c = lib.callCost?.(fn, args, result);
    if (c !== undefined) return c;
  }
  return undefined;
}

export function resourceCheck() {
  const authz = createAuthorizerValue({ authorize: () => ({ decision: 'allow' }) }, { username: 'u' }, { group: '', resource: 'pods' });
  return authz.requestResource;
}

export const quantityOf = (s: string): Quantity => parseQuantity(s);
export const cidrFrom = (s: string): CIDRValue => parseCIDR(s);
export const ipFrom = (s: string): IPValue => parseIP(s);
export const formatNamed = (name: string): NamedFormat => CONSTANT_FORMATS[name];
