import { describe, expect, it } from 'vitest';
import { cel, celError } from './env.js';

describe('URL', () => {
  it('exposes the components of an absolute URI', () => {
    const u = "url('https://user:pass@example.com:80/path?query=val#fragment')";
    expect(cel(`${u}.getScheme()`)).toBe('https');
    expect(cel(`${u}.getHost()`)).toBe('example.com:80');
    expect(cel(`${u}.getHostname()`)).toBe('example.com');
    expect(cel(`${u}.getPort()`)).toBe('80');
    expect(cel(`${u}.getEscapedPath()`)).toBe('/path');
    expect(cel(`${u}.getQuery()`)).toEqual(new Map([['query', ['val']]]));
  });

  it('behaves as Go net/url for paths, hosts and queries', () => {
    expect(cel("url('/absolute-path').getScheme()")).toBe('');
    expect(cel("url('/absolute-path').getHost()")).toBe('');
    expect(cel("url('https://[::1]:80/').getHost()")).toBe('[::1]:80');
    expect(cel("url('https://[::1]:80/').getHostname()")).toBe('::1');
    expect(cel("url('https://[::1]/').getPort()")).toBe('');
    expect(cel("url('HTTPS://example.com').getScheme()")).toBe('https');
    expect(cel("url('https://example.com').getEscapedPath()")).toBe('');
    expect(cel("url('https://example.com/path with spaces/').getEscapedPath()")).toBe('/path%20with%20spaces/');
    expect(cel("url('https://example.com/a%2Fb').getEscapedPath()")).toBe('/a%2Fb');
    expect(cel("url('https://example.com/a#frag').getEscapedPath()")).toBe('/a');
    expect(cel("url('https://example.com/p?k1=a&k2=b&k2=c').getQuery()")).toEqual(
      new Map([
        ['k1', ['a']],
        ['k2', ['b', 'c']],
      ]),
    );
    expect(cel("url('https://example.com/p?key with spaces=a+b%21').getQuery()")).toEqual(
      new Map([['key with spaces', ['a b!']]]),
    );
    // semicolons and bad escapes drop the pair; '=x' is the empty key (as in Go)
    expect(cel("url('https://example.com/p?a=1;b=2&c&=x&%zz=1').getQuery()")).toEqual(
      new Map([
        ['c', ['']],
        ['', ['x']],
      ]),
    );
    expect(cel("url('https://example.com/path?').getQuery()")).toEqual(new Map());
    expect(cel("url('mailto:someone@example.com').getScheme()")).toBe('mailto');
  });

  it('rejects what ParseRequestURI rejects, with Go messages', () => {
    const prefix = 'URL parse error during conversion from string: ';
    // Go 1.26 (urlstrictcolons): an http(s) host has one colon at most, the port's.
    expect(celError("url('https://a:b:c/')")).toBe(`${prefix}parse "https://a:b:c/": invalid port ":b:c" after host`);
    expect(celError("url('../relative-path')")).toBe(`${prefix}parse "../relative-path": invalid URI for request`);
    expect(celError("url('')")).toBe(`${prefix}parse "": empty url`);
    expect(celError("url('https://example.com/%zz')")).toBe(`${prefix}parse "https://example.com/%zz": invalid URL escape "%zz"`);
    expect(celError("url('https://exa mple.com/')")).toBe(
      `${prefix}parse "https://exa mple.com/": invalid character " " in host name`,
    );
    expect(celError("url('http://[::1/')")).toBe(`${prefix}parse "http://[::1/": missing ']' in host`);
    expect(celError("url(':foo')")).toBe(`${prefix}parse ":foo": missing protocol scheme`);
    expect(celError("url('https://a b@example.com/')")).toBe(`${prefix}parse "https://a b@example.com/": net/url: invalid userinfo`);
    expect(celError('url(s)', { s: 'https://example.com/\n' })).toBe(
      `${prefix}parse "https://example.com/\\n": net/url: invalid control character in URL`,
    );
    expect(cel("isURL('https://example.com') && isURL('/p') && !isURL('p') && !isURL('https://a:b:c/')")).toBe(true);
  });

  it('compares URLs by their parts', () => {
    expect(cel("url('https://example.com/a') == url('https://example.com/a')")).toBe(true);
    expect(cel("url('https://example.com/a') == url('https://example.com/b')")).toBe(false);
  });

  // Kubernetes' URL.Equal compares Go's URL.String(): the user info and the fragment's own escaping count.
  it('compares URLs as Go reassembles them (URL.String)', () => {
    expect(cel("url('https://alice@example.com/') == url('https://bob@example.com/')")).toBe(false);
    expect(cel("url('https://u:1@example.com/') == url('https://u:2@example.com/')")).toBe(false);
    expect(cel("url('https://u@example.com/') == url('https://u:@example.com/')")).toBe(false);
    expect(cel("url('https://u:p@example.com/') == url('https://u:p@example.com/')")).toBe(true);
    expect(cel("url('https://example.com/a#f') == url('https://example.com/a#%66')")).toBe(false);
    expect(cel("url('https://example.com/a#') == url('https://example.com/a')")).toBe(true);
    expect(cel("url('HTTPS://example.com/') == url('https://example.com/')")).toBe(true);
    expect(cel("url('https:/p') == url('https:///p')")).toBe(false);
  });
});

describe('hosts as Go 1.26 net/url parses them (kube-apiserver 1.36+)', () => {
  const prefix = 'URL parse error during conversion from string: ';

  it('brackets hold an IPv6 address only (CVE-2025-47912)', () => {
    expect(celError("url('http://[1.2.3.4]/')")).toBe(`${prefix}parse "http://[1.2.3.4]/": invalid IP-literal`);
    expect(celError("url('http://[abc]/')")).toBe(`${prefix}parse "http://[abc]/": invalid host: ParseAddr("abc"): unable to parse IP`);
    expect(celError("url('http://[]/')")).toBe(`${prefix}parse "http://[]/": invalid host: ParseAddr(""): unable to parse IP`);
    expect(celError("url('http://a[::1]/')")).toBe(`${prefix}parse "http://a[::1]/": invalid IP-literal`);
    expect(cel("isURL('https://[1.2.3.4]:8080/')")).toBe(false);
    // IPv4-mapped IPv6 addresses and zones stay valid.
    expect(cel("url('http://[::ffff:1.2.3.4]/').getHostname()")).toBe('::ffff:1.2.3.4');
    expect(cel("url('http://[fe80::1%25en0]:8080/').getHostname()")).toBe('fe80::1%en0');
    expect(cel("url('http://u:p@[::1]:80/').getPort()")).toBe('80');
  });

  it("an http(s) host has at most the port's colon; other schemes take the last colon as the port's", () => {
    expect(celError("url('http://::1/')")).toBe(`${prefix}parse "http://::1/": invalid port "::1" after host`);
    expect(celError("url('https://h:80:80/')")).toBe(`${prefix}parse "https://h:80:80/": invalid port ":80:80" after host`);
    expect(cel("url('ftp://a:b:80/').getHost()")).toBe('a:b:80');
    expect(cel("url('ftp://a:b:80/').getPort()")).toBe('80');
  });

  it("a query of more than 10,000 parameters reads as empty (ParseQuery's limit)", () => {
    const q = (n: number) => `https://h/?${'a=1&'.repeat(n - 1)}a=1`;
    expect((cel('url(s).getQuery()', { s: q(10_000) }) as Map<string, string[]>).get('a')).toHaveLength(10_000);
    expect(cel('url(s).getQuery()', { s: q(10_001) })).toEqual(new Map());
    // Empty parts count too.
    expect(cel('url(s).getQuery()', { s: `https://h/?a=1${'&'.repeat(10_000)}` })).toEqual(new Map());
  });
});
