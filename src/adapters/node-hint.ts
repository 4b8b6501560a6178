/** What `npm start` prints once the server listens: how to send it the sample review. */
export const SAMPLE_REVIEW = 'test/fixtures/reviews/pod-create.json';

/** `sources`: AMENDER_POLICY_SOURCES as read (`bundled`, the default, is the repository's policies/). */
export function exampleHint(url: string, tls: boolean, sources: readonly string[] = ['bundled']): string {
  const insecure = tls ? '--cacert YOUR-CA.crt ' : '';
  const serving = sources.length === 1 && sources[0] === 'bundled' ? 'the bundled policies (policies/)' : `the policies of ${sources.join(', ')}`;
  return [
    '',
    `Amender is serving ${serving} at ${url}`,
    'Send it a review (from the repository folder, in another terminal):',
    '',
    `  curl -sS ${insecure}-H 'Content-Type: application/json' --data-binary @${SAMPLE_REVIEW} ${url}/mutate`,
    '',
    'The reply\'s response.patch is the base64 JSON Patch. The same answer offline, and the mutated Pod:',
    '',
    `  npx amender review --policies policies --input ${SAMPLE_REVIEW}`,
    '  npx amender apply --policies policies --resource policies/tests/all/pod.yaml',
    '',
    `Also: ${url}/readyz, ${url}/metrics. Stop with Ctrl-C.`,
    '',
  ].join('\n');
}
