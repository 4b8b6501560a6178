/**
 * The load-time check of Kyverno's known variables scans a string once per nesting level of its
 * variables (each scan resolves the innermost ones left), and each scan reads the whole string: a policy
 * nesting `{{ to_string(` thousands of levels deep took seconds to minutes to load (8,000 levels: 4 s;
 * a 1 MB document: minutes), stalling the service that loads it. The check now stops after
 * MAX_VARIABLE_SCANS scans of one string and leaves the rest unchecked; at admission the same scans run
 * under the review's deadline.
 */
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/json/index.js';
import { compileKyvernoPolicy } from '../../src/kyverno/index.js';
import { MAX_VARIABLE_SCANS } from '../../src/kyverno/validation/invalid-variables.js';
import { answerReview } from '../../src/server/index.js';
import { policySetFrom, reviewOf } from '../server/helpers.js';
import { clusterPolicy, pod } from './helpers/requests.js';

/** `{{ outer.{{ to_string( … {{ to_string(request.object.metadata.name) }} … ) }} }}`, `levels` variables deep. */
function nested(levels: number, outer: string): string {
  const inner = levels - 1;
  return `{{ ${outer}${'{{ to_string('.repeat(inner)}request.object.metadata.name${') }}'.repeat(inner)} }}`;
}

const policyWith = (template: string) => clusterPolicy('a-nested', [{ name: 'r', mutate: { patchStrategicMerge: { metadata: { annotations: { out: template } } } } }]);

const variableFindings = (template: string) => {
  const result = compileKyvernoPolicy(policyWith(template));
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.findings.filter((f) => f.kind === 'variable');
};

describe('scans of one string in the load-time variable check', () => {
  it('an unknown variable is found up to MAX_VARIABLE_SCANS levels deep', () => {
    // After the inner variables, the outermost reads `unknownvar.null`: a variable Kyverno does not know.
    expect(variableFindings(nested(MAX_VARIABLE_SCANS, 'unknownvar.'))).toHaveLength(1);
    expect(variableFindings(nested(MAX_VARIABLE_SCANS, 'request.'))).toEqual([]);
  });

  it('one level more is left unchecked at load', () => {
    expect(variableFindings(nested(MAX_VARIABLE_SCANS + 1, 'unknownvar.'))).toEqual([]);
  });

  it('a policy nesting variables 5,000 deep loads; at admission its scans are under the review guard', async () => {
    const yaml = `---\n${JSON.stringify(policyWith(nested(5_000, 'request.')))}\n`;
    const set = policySetFrom(yaml);
    expect(set.problems.filter((p) => p.effect === 'ignored')).toEqual([]);
    expect(set.kyvernoPolicies).toHaveLength(1);
    // The guard is polled every TICKS_PER_CHECK variables: cancelled at the third poll, counted, not timed.
    let polls = 0;
    const reply = await answerReview(reviewOf(pod('web', ['c'])) as JsonValue, set, { isCancelled: () => ++polls > 2 });
    // A cancelled review is one whose client went away: answered abandoned, the evaluation stopped.
    expect(reply).toMatchObject({ status: 499, outcome: 'abandoned' });
    expect(polls).toBeGreaterThanOrEqual(3);
  });
});
