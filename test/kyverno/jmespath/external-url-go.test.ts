/**
 * is_external_url reads its URL as Kyverno does, with Go's url.Parse and Hostname() and then net.ParseIP
 * or the resolver (pkg/engine/jmespath/functions.go jpIsExternalURL), not with the WHATWG URL parser: no
 * scheme is needed, leading spaces, percent-escaped ASCII and backslashes in a host are errors with
 * url.Parse's text (returned as is, without the function's prefix), `127.1` or `0x7f.0.0.1` are no IP
 * literals (the first is no domain name either: the resolver refuses it), and an IPv6 zone is read.
 */
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../../src/kyverno/jmespath/index.js';

const external = (url: string) => evaluate(`is_external_url('${url}')`, {});

describe('is_external_url with Go net/url', () => {
  it.each([
    ['//10.0.0.1', false],
    ['http://[fe80::1%25eth0]/', true],
    ['http://0x7f.0.0.1/', true], // a name to resolve, not 127.0.0.1; judged by its form
    ['http://[::ffff:10.0.0.1]/', false],
    ['http://user@10.0.0.1', false],
  ])('%s → %s', (url, expected) => {
    expect(external(url)).toEqual({ ok: true, value: expected });
  });

  it.each([
    ['http://[::1', 'parse "http://[::1": missing \']\' in host'],
    ['%', 'parse "%": invalid URL escape "%"'],
    [' http://a', 'parse " http://a": first path segment in URL cannot contain colon'],
    ['http://a b', 'parse "http://a b": invalid character " " in host name'],
    ['http://%31%30.0.0.1/', 'parse "http://%31%30.0.0.1/": invalid URL escape "%31"'],
    ['http://[::1]:x/', 'parse "http://[::1]:x/": invalid port ":x" after host'],
    ['http://a:b:c/', 'parse "http://a:b:c/": invalid port ":b:c" after host'],
    ['http://[10.0.0.1]/', 'parse "http://[10.0.0.1]/": invalid IP-literal'],
    ['http://127.1/', 'lookup 127.1: no such host'],
    ['http://017.0.0.1/', 'lookup 017.0.0.1: no such host'],
    ['10.0.0.1', 'lookup : no such host'],
    ['', 'lookup : no such host'],
  ])('%s fails: %s', (url, message) => {
    const r = external(url);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toBe(message);
  });
});
