/**
 * base64_decode of bytes that are not UTF-8, through a whole review: Kyverno keeps the bytes in its Go
 * string, so a hash of them is the hash of the data, and the value written into the object is JSON-encoded
 * with U+FFFD for each byte (encoding/json), which is what the API server reads from our patch too.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { runKyvernoPolicies } from '../../src/kyverno/index.js';
import { clusterPolicy, compiled, pod, podRequest } from './helpers/requests.js';

describe('base64_decode of binary data', () => {
  it('hashes and re-encodes the decoded bytes, and writes each undecodable byte as U+FFFD', async () => {
    const policy = clusterPolicy('binary', [
      {
        name: 'annotate',
        mutate: {
          patchStrategicMerge: {
            metadata: {
              annotations: {
                sha: "{{ sha256(base64_decode('/w==')) }}",
                again: "{{ base64_encode(base64_decode('gICA')) }}",
                text: "{{ base64_decode('gICA') }}",
              },
            },
          },
        },
      },
    ]);
    const result = await runKyvernoPolicies([compiled(policy)], { request: podRequest(pod('web', ['app'])) });
    expect(result.policies[0].status).toBe('applied');
    const annotations = ((result.object as JsonObject).metadata as JsonObject).annotations as JsonObject;
    expect(annotations.sha).toBe('a8100ae6aa1940d0b663bb31cd466142ebbdbd5187131b92d93818987832eb89');
    expect(annotations.again).toBe('gICA');
    // Each byte is kept as U+DC00 + byte; our JSON writes it as \udc80, which the API server's Go decoder
    // reads as U+FFFD, as it reads the \ufffd Kyverno's encoder writes.
    expect(annotations.text).toBe('\udc80\udc80\udc80');
    expect(JSON.stringify(annotations.text)).toBe('"\\udc80\\udc80\\udc80"');
  });
});
