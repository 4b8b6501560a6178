/**
 * containsIP/containsCIDR cost a traversal of the CIDR's size (apiserver pkg/cel/library/cost.go), which
 * cel-go's actualSize reads from CIDR.Size(): the prefix length in bytes, rounded up (pkg/cel/cidr.go).
 * cost_test.go only has /16 and /32 prefixes, whose 2 and 4 bytes cost 1 like a size of 1 would.
 */
import { describe, expect, it } from 'vitest';
import { k8sCost } from './run.js';

describe('containsIP/containsCIDR cost by the prefix length', () => {
  it('an IPv6 prefix longer than /40 costs more than a short one', () => {
    // cidr('2001:db8::/48'): ceil(14 * 0.1) = 2; containsIP: ceil(2 * 6 * 0.1) = 2, plus the string ceil(11 * 0.1) = 2.
    expect(k8sCost("cidr('2001:db8::/48').containsIP('2001:db8::1')")).toEqual({ value: true, cost: 6 });
    // /128: 16 bytes, ceil(3.2) = 4; ip('::1') 1.
    expect(k8sCost("cidr('::/128').containsIP(ip('::1'))")).toEqual({ value: false, cost: 6 });
    // containsCIDR adds ceil(16 * 0.1) + 1 = 3.
    expect(k8sCost("cidr('2001:db8::/128').containsCIDR(cidr('2001:db8::/128'))")).toEqual({ value: true, cost: 11 });
  });

  it('a /0 prefix has size 0: its check costs nothing', () => {
    expect(k8sCost("cidr('::/0').containsIP(ip('::1'))")).toEqual({ value: true, cost: 2 });
    expect(k8sCost("cidr('0.0.0.0/0').containsCIDR(cidr('0.0.0.0/0'))")).toEqual({ value: true, cost: 3 });
  });

  it('short prefixes cost as cost_test.go has them', () => {
    expect(k8sCost("cidr('192.168.0.0/16').containsIP(ip('192.0.0.1'))")).toEqual({ value: false, cost: 4 });
    expect(k8sCost("cidr('2001:db8::/32').containsCIDR('2001:db8::/126')")).toEqual({ value: true, cost: 7 });
  });
});
