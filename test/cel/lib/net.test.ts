import { describe, expect, it } from 'vitest';
import { cel, celError } from './env.js';

describe('IP', () => {
  it('prints the canonical (RFC 5952) form', () => {
    const cases: [string, string][] = [
      ['2001:DB8::68', '2001:db8::68'],
      ['2001:0db8:0000:0000:0000:0000:0000:0068', '2001:db8::68'],
      ['1:0:0:1:0:0:0:1', '1:0:0:1::1'],
      ['1:0:0:0:1:0:0:1', '1::1:0:0:1'],
      ['1:0:1:0:1:0:1:0', '1:0:1:0:1:0:1:0'],
      ['::', '::'],
      ['::1', '::1'],
      ['fe80::', 'fe80::'],
      ['::fffe:0:1', '::fffe:0:1'],
      ['64:ff9b::192.0.2.1', '64:ff9b::c000:201'],
    ];
    for (const [input, canonical] of cases) {
      expect(cel('string(ip(s))', { s: input }), input).toBe(canonical);
      expect(cel('ip.isCanonical(s)', { s: input }), input).toBe(input === canonical);
    }
  });

  it('rejects what Kubernetes rejects, with its messages', () => {
    expect(celError('ip("192.168.00.1")')).toBe(
      'IP Address "192.168.00.1" parse error during conversion from string: ParseAddr("192.168.00.1"): IPv4 field has octet with leading zero',
    );
    expect(celError('ip("256.0.0.1")')).toMatch(/IPv4 field has value >255$/);
    expect(celError('ip("1.2.3")')).toMatch(/IPv4 address too short$/);
    expect(celError('ip("1..2.3")')).toMatch(/IPv4 field must have at least one digit \(at "\.2\.3"\)$/);
    expect(celError('ip("fe80::1%eth0")')).toBe('IP address "fe80::1%eth0" with zone value is not allowed');
    expect(celError('ip("::ffff:1.2.3.4")')).toBe('IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed');
    expect(celError('ip("")')).toMatch(/ParseAddr\(""\): unable to parse IP$/);
    expect(celError('ip("1:2:3:4:5:6:7:8:9")')).toMatch(/trailing garbage after address \(at "9"\)$/);
    expect(celError('ip("12345::")')).toMatch(/each group must have 4 or less digits/);
    expect(celError('ip("1::2::3")')).toMatch(/multiple :: in address/);
    expect(cel('isIP("1.2.3.4") && !isIP("1.2.3.4/32")')).toBe(true);
  });

  it('classifies addresses as Go netip', () => {
    expect(cel('ip("0.0.0.0").isUnspecified() && ip("::").isUnspecified()')).toBe(true);
    expect(cel('ip("127.1.2.3").isLoopback() && ip("::1").isLoopback() && !ip("::2").isLoopback()')).toBe(true);
    expect(cel('ip("224.0.0.1").isLinkLocalMulticast() && !ip("224.0.1.1").isLinkLocalMulticast()')).toBe(true);
    expect(cel('ip("ff32::1").isLinkLocalMulticast()')).toBe(true);
    expect(cel('ip("169.254.169.254").isLinkLocalUnicast() && ip("febf::1").isLinkLocalUnicast()')).toBe(true);
    expect(cel('ip("10.0.0.1").isGlobalUnicast() && ip("fd00::1").isGlobalUnicast()')).toBe(true);
    expect(cel('ip("0.0.0.0").isGlobalUnicast() || ip("ff00::1").isGlobalUnicast()')).toBe(false);
    expect(cel('ip("1.2.3.4").family() == 4 && ip("::1").family() == 6')).toBe(true);
    expect(cel('ip("::1") == ip("0:0::1") && ip("1.2.3.4") != ip("1.2.3.5")')).toBe(true);
    expect(cel('type(ip("::1")) == net.IP && type(cidr("::/0")) == net.CIDR')).toBe(true);
  });
});

describe('CIDR', () => {
  it('keeps host bits, masks on request', () => {
    expect(cel('cidr("192.168.0.1/24") == cidr("192.168.0.1/24").masked()')).toBe(false);
    expect(cel('string(cidr("192.168.0.1/24").masked())')).toBe('192.168.0.0/24');
    expect(cel('string(cidr("192.168.0.1/24").ip())')).toBe('192.168.0.1');
    expect(cel('cidr("2001:db8::1/33").masked() == cidr("2001:db8::/33")')).toBe(true);
    expect(cel('cidr("10.0.0.0/8").prefixLength()')).toBe(8n);
  });

  it('containment follows the prefix, whatever the host bits', () => {
    expect(cel('cidr("10.1.2.3/8").containsIP("10.255.0.1")')).toBe(true);
    expect(cel('cidr("10.0.0.0/8").containsIP(ip("11.0.0.1"))')).toBe(false);
    expect(cel('cidr("10.0.0.0/8").containsIP("::1")')).toBe(false);
    expect(cel('cidr("10.0.0.0/8").containsCIDR("10.1.0.0/16")')).toBe(true);
    expect(cel('cidr("10.0.0.0/16").containsCIDR("10.0.0.0/8")')).toBe(false);
    expect(cel('cidr("0.0.0.0/0").containsCIDR(cidr("1.2.3.4/32"))')).toBe(true);
    expect(cel('cidr("::/0").containsCIDR(cidr("1.2.3.4/32"))')).toBe(false);
  });

  it('reports errors as Kubernetes does', () => {
    expect(celError('cidr("10.0.0.0")')).toBe(
      'network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("10.0.0.0"): no \'/\'',
    );
    expect(celError('cidr("10.0.0.0/33")')).toMatch(/netip\.ParsePrefix\("10\.0\.0\.0\/33"\): prefix length out of range$/);
    expect(celError('cidr("10.0.0.0/08")')).toMatch(/bad bits after slash: "08"$/);
    expect(celError('cidr("fe80::1%eth0/64")')).toMatch(/IPv6 zones cannot be present in a prefix$/);
    expect(celError('cidr("::ffff:1.2.3.0/120")')).toBe(
      'network address parse error during conversion from string: IPv4-mapped IPv6 address "::ffff:1.2.3.0/120" is not allowed',
    );
    expect(celError('cidr("10.0.0.0/8").containsIP("10.0.0.01")')).toBe('no such overload');
    expect(celError('cidr("10.0.0.0/8").containsCIDR("10.0.0.0")')).toMatch(/no '\/'$/);
    expect(cel('isCIDR("10.0.0.0/8") && !isCIDR("10.0.0.0")')).toBe(true);
  });
});
