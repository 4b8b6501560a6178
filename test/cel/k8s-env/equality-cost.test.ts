/**
 * The runtime cost of == and != on Kubernetes' library values. kube-apiserver's cost estimator prices
 * `_==_` at 1 when the left operand is one of its values (apiserver pkg/cel/library/cost.go CallCost);
 * it has no case for `_!=_`, so cel-go charges its default: the smaller operand's actualSize times 0.1,
 * rounded up (interpreter/runtimecost.go), where net.IP and net.CIDR are traits.Sizer (pkg/cel/ip.go:
 * 4 or 16 bytes; cidr.go: the prefix length in bytes) and an optional counts its value's size.
 */
import { describe, expect, it } from 'vitest';
import { k8sCost } from './run.js';

describe('== and != costs of library values', () => {
  it('!= of two IPv6 addresses costs ceil(16 * 0.1) = 2; == costs 1', () => {
    // ip('::1') parses 3 characters: 1 each.
    expect(k8sCost("ip('::1') != ip('::2')")).toEqual({ value: true, cost: 4 });
    expect(k8sCost("ip('::1') == ip('::2')")).toEqual({ value: false, cost: 3 });
    // IPv4: 4 bytes, ceil(0.4) = 1 either way.
    expect(k8sCost("ip('1.2.3.4') != ip('1.2.3.4')")).toEqual({ value: false, cost: 3 });
  });

  it('!= of CIDRs costs by the prefix length; == costs 1', () => {
    expect(k8sCost("cidr('::/128') != cidr('::/128')")).toEqual({ value: false, cost: 4 });
    expect(k8sCost("cidr('::/128') == cidr('::/128')")).toEqual({ value: true, cost: 3 });
    expect(k8sCost("cidr('::/64') != cidr('::/64')")).toEqual({ value: false, cost: 3 });
  });

  it('a library value on the right of == is not priced by Kubernetes: the traversal of the smaller', () => {
    // dyn(ip('::1')) 2; 'a' x 41 against 16 bytes: ceil(1.6) = 2.
    expect(k8sCost(`dyn('${'a'.repeat(41)}') == dyn(ip('::1'))`)).toEqual({ value: false, cost: 4 });
  });

  it('optionals count their value', () => {
    // optional.of(ip('::1')) 2 each; 16 bytes: 2.
    expect(k8sCost("optional.of(ip('::1')) == optional.of(ip('::1'))")).toEqual({ value: true, cost: 6 });
    // optional.of 1 each; ceil(25 * 0.1) = 3 (a size of 1 would cost 1).
    expect(k8sCost(`optional.of('${'x'.repeat(25)}') == optional.of('${'x'.repeat(25)}')`)).toEqual({ value: true, cost: 5 });
  });

  it('quantities, semvers and URLs have no size: 1 either way', () => {
    expect(k8sCost("quantity('1') != quantity('1')")).toEqual({ value: false, cost: 3 });
    expect(k8sCost("semver('1.0.0') != semver('1.0.0')")).toEqual({ value: false, cost: 3 });
  });
});
