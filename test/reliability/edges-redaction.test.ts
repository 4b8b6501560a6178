/**
 * Issue 9, item 7: the path written to logs for any `/clusters/...` path, matched by a route or not
 * (`redactPath`, the package export every log line and 404/405 message goes through). The built
 * server's log is checked in edges-http.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { redactPath } from '../../src/server/index.js';

const S = 'c0ffeec0ffeec0ffee';

describe('redactPath', () => {
  it.each([
    ['/clusters/prod/mutate', '/clusters/prod/mutate'],
    ['/clusters/prod/readyz', '/clusters/prod/readyz'],
    [`/clusters/prod/${S}/mutate`, '/clusters/prod/[redacted]/mutate'],
    [`/clusters/prod/${S}/readyz`, '/clusters/prod/[redacted]/readyz'],
    [`/clusters/prod/${S}//mutate`, '/clusters/prod/[redacted]'],
    [`/clusters/prod/${S}/Mutate`, '/clusters/prod/[redacted]'],
    [`/clusters/prod/${S}/mutate/x`, '/clusters/prod/[redacted]'],
    [`/clusters/prod/${S}`, '/clusters/prod/[redacted]'],
    [`/clusters//${S}/mutate`, '/clusters//[redacted]/mutate'],
    [`//clusters/prod/${S}/mutate`, '//clusters/prod/[redacted]/mutate'],
    [`/CLUSTERS/prod/${S}/x`, '/CLUSTERS/prod/[redacted]'],
    ['/clusters/prod', '/clusters/prod'],
    ['/mutate', '/mutate'],
    // Outside a cluster route, a segment long enough to be a secret (src/server/redact.ts).
    [`/other/${S}`, '/other/[redacted]'],
    ['/other/short', '/other/short'],
  ])('%s → %s', (path, logged) => {
    expect(redactPath(path)).toBe(logged);
  });
});
