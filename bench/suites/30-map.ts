/**
 * One in-process review of the 4 KB Pod against 10 MutatingAdmissionPolicies (bench/fixtures/
 * map-policies.yaml: JSONPatch and ApplyConfiguration, matchConditions, variables, a param), the way the
 * server does it: parse the body, validate the review, evaluate, encode the reply. Compared with
 * JSON.parse + JSON.stringify of the same review, measured in the same run.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { allowReply, denyReply, validateReview } from '../../src/admission/index.js';
import { evaluate } from '../../src/engine/index.js';
import { parseJson } from '../../src/json/index.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { pod4k } from '../fixtures.js';
import { formatNs, measure, measureAsync, table } from '../lib.js';

const here = dirname(fileURLToPath(import.meta.url));

export async function run(): Promise<void> {
  const policyText = readFileSync(join(here, '..', 'fixtures', 'map-policies.yaml'), 'utf8');
  const set = buildPolicySet([parseDocuments('map-policies.yaml', policyText)]);
  if (set.problems.length > 0) throw new Error(`bench policies have problems: ${JSON.stringify(set.problems)}`);
  const body = JSON.stringify(pod4k());

  const review = async (): Promise<string> => {
    const checked = validateReview(parseJson(body));
    if (!checked.ok) throw checked.error;
    const result = await evaluate(set, checked.request);
    const reply = result.allowed ? allowReply(checked.request.uid, result.patch) : denyReply(checked.request.uid, result.status);
    return JSON.stringify(reply);
  };

  // One review up front: it must be admitted and change the Pod, or the figures mean nothing.
  const first = await evaluate(set, (validateReview(parseJson(body)) as { ok: true; request: any }).request);
  if (!first.allowed) throw new Error(`bench review denied: ${first.status.message}`);
  const mutated = first.outcomes.filter((o) => o.result === 'mutated').length;
  const skipped = first.outcomes.filter((o) => o.result === 'skipped').length;

  const baseline = measure(() => JSON.stringify(JSON.parse(body)));
  const stats = await measureAsync(review, { minMillis: 1000, warmup: 500, minSamples: 1000 });
  table('MAP: one review of a 4 KB Pod against 10 MutatingAdmissionPolicies', [
    {
      policies: set.counts.mutatingAdmissionPolicies,
      mutated,
      skipped,
      'patch ops': first.patch.length,
      median: formatNs(stats.median),
      p99: formatNs(stats.p99),
      'JSON baseline': formatNs(baseline.median),
      ratio: (stats.median / baseline.median).toFixed(2),
    },
  ]);
}

