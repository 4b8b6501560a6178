/**
 * Kyverno's chainsaw autogen tests (test/conformance/chainsaw/autogen/*, kyverno/kyverno @ 111e07bbecc6; copied
 * unchanged into upstream/autogen/): each policy, and the `status.autogen.rules` Kyverno writes for it. Those
 * policies hold validate rules, which Amender does not run, so each rule becomes a mutate rule with the same
 * shape — `validate.pattern` as `patchStrategicMerge`, `validate.deny.conditions` as `preconditions` (with a
 * metadata overlay) — and the rules Amender generates must be Kyverno's: the same names, kinds, overlay moved
 * under the template, and `request.object` references rewritten.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cloneJson, isJsonObject, type JsonObject, type JsonValue } from '../../src/json/index.js';
import { compileKyvernoPolicy } from '../../src/kyverno/index.js';
import { parseDocuments } from '../../src/policyset/index.js';

const ROOT = new URL('./upstream/autogen/', import.meta.url);
const cases = readdirSync(ROOT).sort();

function document(path: URL): JsonObject {
  const parsed = parseDocuments(path.pathname, readFileSync(path, 'utf8'));
  const docs = parsed.documents.map((d) => d.value);
  if (docs.length !== 1 || !isJsonObject(docs[0])) throw new Error(`${path.pathname}: one document expected`);
  return docs[0];
}

/** A validate rule as a mutate rule of the same shape (see the header). */
function asMutateRule(rule: JsonObject): JsonObject {
  const out = cloneJson(rule) as JsonObject;
  const validate = out.validate as JsonObject;
  delete out.validate;
  if (isJsonObject(validate.pattern)) {
    out.mutate = { patchStrategicMerge: validate.pattern };
  } else if (isJsonObject(validate.deny)) {
    out.preconditions = (validate.deny as JsonObject).conditions as JsonValue;
    out.mutate = { patchStrategicMerge: { metadata: { labels: { checked: 'yes' } } } };
  } else {
    throw new Error('a validate rule with pattern or deny expected');
  }
  return out;
}

/** The overlay of a deny rule's stand-in, moved as Kyverno moves a pattern for the generated rule. */
function underTemplate(name: string, overlay: JsonObject): JsonObject {
  const template = { template: overlay };
  return name.startsWith('autogen-cronjob-') ? { spec: { jobTemplate: { spec: template } } } : { spec: template };
}

/** What of a generated rule Kyverno's status shows that a mutate rule also has: kinds, overlay, conditions. */
function expectedOf(rule: JsonObject) {
  const validate = rule.validate as JsonObject;
  const filters = ((rule.match as JsonObject).any as JsonObject[]) ?? [{ resources: (rule.match as JsonObject).resources }];
  return {
    name: rule.name,
    kinds: filters.flatMap((f) => ((f.resources as JsonObject).kinds as string[]).map((k) => k)).sort(),
    overlay: validate.pattern ?? underTemplate(String(rule.name), { metadata: { labels: { checked: 'yes' } } }),
    preconditions: isJsonObject(validate.deny) ? (validate.deny as JsonObject).conditions : undefined,
  };
}

describe('chainsaw autogen: the rules generated for pod controllers', () => {
  it.each(cases)('%s', (name) => {
    const policy = document(new URL(`${name}/policy.yaml`, ROOT));
    const check = document(new URL(`${name}/check-autogen.yaml`, ROOT));
    const spec = policy.spec as JsonObject;
    spec.rules = (spec.rules as JsonObject[]).map(asMutateRule);
    delete spec.validationFailureAction;
    const compiled = compileKyvernoPolicy(policy);
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.problems));
    const generated = compiled.policy.rules.filter((r) => r.autogen).map((r) => ({
      name: r.name,
      kinds: [...(r.match.any ?? [r.match.single!])].flatMap((f) => (f.kinds ?? []).map((k) => `${k.group === '' || k.group === '*' ? '' : `${k.group}/`}${k.version === '*' ? '' : `${k.version}/`}${k.kind}`.replace(/^\/?/, ''))).sort(),
      overlay: (r.substitutable.mutate as JsonObject).patchStrategicMerge,
      preconditions: r.substitutable.preconditions,
    }));
    const autogen = (check.status as JsonObject).autogen as JsonObject;
    const expected = ((autogen.rules as JsonObject[] | undefined) ?? []).map(expectedOf);
    expect(generated).toEqual(expected);
  });
});
