/**
 * What Kyverno's policy validation refuses of a rule that selects every kind (`kinds: ["*"]` in a match or
 * exclude block; pkg/validation/policy validateWildcard): such a rule may not run in background mode, may
 * name no other kind beside `*`, may not generate or verify images, and may change or check only the
 * resource's `metadata`. Kyverno refuses the whole policy, at its webhook and in its CLI.
 */
import { getOwn, isJsonObject, type JsonObject, type JsonValue } from '../../json/index.js';
import { isSet } from './is-set.js';

export interface WildcardKindsProblem {
  readonly path: string;
  readonly message: string;
}

const BACKGROUND = 'wildcard policy not allowed in background mode. Set spec.background=false to disable background mode for this policy rule';
const MORE_THAN_ONE = 'wildcard policy can not deal with more than one kind';
const RULE_TYPE = 'wildcard policy does not support rule type';
const METADATA_ONLY = 'policy can only deal with the metadata field of the resource if the rule does not match any kind';

/** The first wildcard-kind rule Kyverno refuses in the policy, in Kyverno's order; none when allowed. */
export function wildcardKindsProblem(spec: JsonObject, rules: readonly JsonValue[]): WildcardKindsProblem | undefined {
  const background = getOwn(spec, 'background') !== false;
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i];
    if (!isJsonObject(rule)) continue;
    for (const [at, kinds] of kindLists(rule)) {
      const message = wildcardProblem(kinds, background, rule);
      if (message) return { path: `spec.rules[${i}].${at}`, message };
    }
  }
  return undefined;
}

/** The `kinds` lists of a rule's match and exclude blocks, where Kyverno looks, in its order. */
function kindLists(rule: JsonObject): [string, readonly JsonValue[]][] {
  const found: [string, readonly JsonValue[]][] = [];
  for (const section of ['match', 'exclude']) {
    const block = getOwn(rule, section);
    if (!isJsonObject(block)) continue;
    for (const list of ['any', 'all']) {
      const filters = getOwn(block, list);
      if (!Array.isArray(filters)) continue;
      filters.forEach((filter, j) => {
        const kinds = resourceKinds(filter);
        if (kinds) found.push([`${section}.${list}[${j}].resources.kinds`, kinds]);
      });
    }
    const kinds = resourceKinds(block);
    if (kinds) found.push([`${section}.resources.kinds`, kinds]);
  }
  return found;
}

function resourceKinds(filter: JsonValue): readonly JsonValue[] | undefined {
  const resources = isJsonObject(filter) ? getOwn(filter, 'resources') : undefined;
  const kinds = isJsonObject(resources) ? getOwn(resources, 'kinds') : undefined;
  return Array.isArray(kinds) ? kinds : undefined;
}

function wildcardProblem(kinds: readonly JsonValue[], background: boolean, rule: JsonObject): string | undefined {
  if (!kinds.includes('*')) return undefined;
  if (background) return BACKGROUND;
  if (kinds.length > 1) return MORE_THAN_ONE;
  const validate = getOwn(rule, 'validate');
  if (isSet(getOwn(rule, 'generate')) || isSet(getOwn(rule, 'verifyImages')) || (isJsonObject(validate) && isSet(getOwn(validate, 'foreach')))) return RULE_TYPE;
  if (isSet(validate) && !validateDealsWithMetadataOnly(validate as JsonObject)) return METADATA_ONLY;
  const mutate = getOwn(rule, 'mutate');
  if (isSet(mutate) && !mutateDealsWithMetadataOnly(mutate as JsonObject)) return METADATA_ONLY;
  return undefined;
}

/**
 * A strategic-merge overlay of `metadata` alone, and a JSON patch whose every path starts with
 * `/metadata`. Kyverno decodes the patch text as JSON only: YAML text, the usual form, is not checked.
 */
function mutateDealsWithMetadataOnly(mutate: JsonObject): boolean {
  const overlay = getOwn(mutate, 'patchStrategicMerge');
  if (isJsonObject(overlay) && Object.keys(overlay).some((key) => key !== 'metadata')) return false;
  const text = getOwn(mutate, 'patchesJson6902');
  if (typeof text !== 'string' || text === '') return true;
  const operations = jsonOperations(text);
  return operations === undefined || operations.every((op) => typeof getOwn(op, 'path') === 'string' && (getOwn(op, 'path') as string).startsWith('/metadata'));
}

function validateDealsWithMetadataOnly(validate: JsonObject): boolean {
  const patterns = [getOwn(validate, 'pattern'), ...asList(getOwn(validate, 'anyPattern'))];
  return patterns.every((pattern) => !isJsonObject(pattern) || Object.keys(pattern).every((key) => key === 'metadata'));
}

/** The text as a JSON list of operations (objects), or undefined when it does not decode as one. */
function jsonOperations(text: string): JsonObject[] | undefined {
  let decoded: unknown;
  try {
    decoded = JSON.parse(text);
  } catch {
    return undefined;
  }
  return Array.isArray(decoded) && decoded.every(isJsonObject) ? (decoded as JsonObject[]) : undefined;
}

function asList(value: JsonValue | undefined): readonly JsonValue[] {
  return Array.isArray(value) ? value : [];
}
