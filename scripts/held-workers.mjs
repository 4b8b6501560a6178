/**
 * `node scripts/held-workers.mjs [--long 4] [--workers 2] [--seconds 9.5]` (after `npm run build`): how long
 * an ordinary review waits while long reviews hold the Node server's review workers (README, Isolation).
 *
 * Starts dist/node/main.js on loopback with one policy set: a MutatingAdmissionPolicy with 2,000 bindings
 * whose matchConditions run ~10⁴ CEL steps each for a Pod labelled `app: slow` (so its review runs to the
 * default 8 s deadline) and stop at once for any other Pod. Sends `--long` reviews of a slow Pod at once,
 * then ordinary reviews one after another until `--seconds` have passed, and prints the long reviews'
 * answers, the first ordinary review's, and how many ordinary reviews were patched or denied.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { option, ROOT, startBuiltServer } from './built-server.mjs';

const LONG = option('long', 4);
const WORKERS = option('workers', 2);
const SECONDS = option('seconds', 9.5);

const DIGITS = '[0,1,2,3,4,5,6,7,8,9]';
const SLOW = `${DIGITS}.all(a, ${DIGITS}.all(b, ${DIGITS}.all(c, ${DIGITS}.all(d, a + b + c + d >= 0))))`;
const CONDITION = `object.metadata.labels.app != "slow" || ${SLOW}`;

function policies() {
  const conditions = Array.from({ length: 8 }, (_, i) => `    - {name: slow-${i}, expression: '${CONDITION}'}\n`).join('');
  let yaml = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: mixed}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}]
  failurePolicy: Fail
  reinvocationPolicy: Never
  matchConditions:
${conditions}  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: 'Object{metadata: Object.metadata{labels: {"mixed": "yes"}}}'
`;
  for (let i = 0; i < 2000; i++) yaml += `---\napiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicyBinding\nmetadata: {name: mixed-${i}}\nspec: {policyName: mixed}\n`;
  return yaml;
}

const dir = mkdtempSync(join(tmpdir(), 'amender-held-'));
writeFileSync(join(dir, 'policies.yaml'), policies());
const REVIEW = readFileSync(join(ROOT, 'test/fixtures/reviews/pod-create.json'), 'utf8');
const SLOW_POD = REVIEW.replace('"app": "checkout"', '"app": "slow"');

const server = await startBuiltServer({ AMENDER_POLICY_SOURCES: `file://${dir}`, AMENDER_WORKERS: String(WORKERS), AMENDER_REFRESH_SECONDS: '0' });
const { lines, url } = server;

try {
  const post = async (body) => {
    const sent = performance.now();
    const reply = await fetch(new URL('/mutate', url), { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    const response = (await reply.json()).response ?? {};
    return { ms: Math.round(performance.now() - sent), status: reply.status, patched: Boolean(response.patch), denied: response.allowed === false, message: response.status?.message?.slice(0, 90) };
  };
  await post(REVIEW); // every worker started and holding the set
  await post(REVIEW);
  const t0 = performance.now();
  const long = Array.from({ length: LONG }, () => post(SLOW_POD));
  await new Promise((resolve) => setTimeout(resolve, 100));
  const ordinary = [];
  while (performance.now() - t0 < SECONDS * 1000) ordinary.push(await post(REVIEW));
  console.log(`${WORKERS} workers, ${LONG} long reviews at once, then ordinary reviews one at a time for ${SECONDS} s`);
  for (const answer of await Promise.all(long)) console.log('long     ', JSON.stringify(answer));
  console.log('first ordinary', JSON.stringify(ordinary[0]));
  console.log(`ordinary reviews: ${ordinary.length}, patched ${ordinary.filter((a) => a.patched).length}, denied ${ordinary.filter((a) => a.denied).length}, slowest ${Math.max(...ordinary.map((a) => a.ms))} ms`);
  const spare = lines.filter((l) => /spare/.test(l.msg)).map((l) => `${l.msg}${l.afterMs ? ` after ${l.afterMs} ms` : ''}`);
  console.log(`spare worker: ${spare.length > 0 ? spare.join('; ') : 'none'}`);
} finally {
  server.child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
