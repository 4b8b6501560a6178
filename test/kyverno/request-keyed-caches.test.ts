/**
 * The Kyverno engine's module-level caches (compiled regexes, compiled JMESPath expressions, parsed
 * anchor keys) live as long as the process and serve every review. Their keys may come from the request:
 * a pattern read from an annotation, an outer expression a nested variable builds from the request
 * (`{{ a."{{ request.object.metadata.annotations.k }}" }}`), a map key produced by a variable. Bounded
 * only by their number of entries, they kept reviews' text alive: 1,000 reviews with 200 KB values kept
 * 200 MB (anchor keys) and 600 MB (expressions); 250 reviews with 200 KB patterns kept 4 GB (a compiled
 * program is ~80 bytes per character). Long keys are now used once and not kept. Whether a value was
 * kept is seen by identity: a cached compile gives back the same object.
 */
import { describe, expect, it } from 'vitest';
import { compile, CACHED_EXPRESSION_MAX } from '../../src/kyverno/jmespath/index.js';
import { CACHED_PATTERN_MAX, compileRegexp } from '../../src/kyverno/jmespath/goregexp.js';
import { PARSED_KEY_MAX, parseAnchor } from '../../src/kyverno/patchers/anchors.js';
import type { JsonObject } from '../../src/json/index.js';
import { runKyvernoPolicies } from '../../src/kyverno/index.js';
import { clusterPolicy, compiled, pod, podRequest } from './helpers/requests.js';

describe('caches keep short keys only', () => {
  it('regex patterns', () => {
    const short = 'a'.repeat(CACHED_PATTERN_MAX);
    const long = 'a'.repeat(CACHED_PATTERN_MAX + 1);
    expect(compileRegexp(short)).toBe(compileRegexp(short));
    expect(compileRegexp(long)).not.toBe(compileRegexp(long));
    expect(compileRegexp(long).test(`x${long}`)).toBe(true);
  });

  it('JMESPath expressions', () => {
    const at = (n: number) => `a.${'"b"'.padEnd(n - 2, ' ')}`;
    expect(at(CACHED_EXPRESSION_MAX)).toHaveLength(CACHED_EXPRESSION_MAX);
    expect(compile(at(CACHED_EXPRESSION_MAX))).toBe(compile(at(CACHED_EXPRESSION_MAX)));
    const long = at(CACHED_EXPRESSION_MAX + 1);
    expect(compile(long)).not.toBe(compile(long));
    expect(compile(long).search({ a: { b: 1 } })).toBe(1);
  });

  it('anchor keys', () => {
    const key = (n: number) => `+(${'k'.repeat(n - 3)})`;
    expect(key(PARSED_KEY_MAX)).toHaveLength(PARSED_KEY_MAX);
    expect(parseAnchor(key(PARSED_KEY_MAX))).toBe(parseAnchor(key(PARSED_KEY_MAX)));
    const long = key(PARSED_KEY_MAX + 1);
    expect(parseAnchor(long)).not.toBe(parseAnchor(long));
    expect(parseAnchor(long)).toEqual({ type: 'addIfNotPresent', key: 'k'.repeat(PARSED_KEY_MAX - 2) });
  });
});

describe('rules reading long request values behave as before', () => {
  it('a regex pattern, a nested variable and an overlay key from annotations', async () => {
    const long = 'x'.repeat(5000);
    const policy = clusterPolicy('a-request-keys', [
      {
        name: 'r',
        mutate: {
          patchStrategicMerge: {
            metadata: {
              labels: {
                matched: "{{ to_string(regex_match(request.object.metadata.annotations.pattern, request.object.metadata.annotations.subject)) }}",
                nested: '{{ request.object.metadata.annotations."{{ request.object.metadata.annotations.name }}" }}',
              },
              annotations: { '+({{ request.object.metadata.annotations.pattern }})': 'added' },
            },
          },
        },
      },
    ]);
    const subject = pod('web', ['c']);
    (subject.metadata as JsonObject).annotations = { pattern: `^${long}$`, subject: long, name: long, [long]: 'found' };
    for (let i = 0; i < 2; i++) {
      const result = await runKyvernoPolicies([compiled(policy)], { request: podRequest(subject) });
      expect(result.policies[0].rules[0]).toMatchObject({ status: 'applied' });
      const metadata = (result.object as JsonObject).metadata as JsonObject;
      expect(metadata.labels).toEqual({ matched: 'true', nested: 'found' });
      expect((metadata.annotations as JsonObject)[`^${long}$`]).toBe('added');
    }
  });
});
