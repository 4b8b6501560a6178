/**
 * Kyverno documents a policy set holds but Amender does not run (issue 10): before, they were read as
 * plain param objects and silently did nothing. Each is now a problem (effect `ignored`) that says why.
 * `kyverno.io` ClusterPolicy / Policy are compiled by src/kyverno; `policies.kyverno.io`
 * MutatingPolicy / NamespacedMutatingPolicy of the versions src/mpol reads are loaded there.
 */
import { parseApiVersion } from '../schema/index.js';
import { mutatingPolicyApiVersions } from '../mpol/index.js';

const KYVERNO_GROUP = 'kyverno.io';
const POLICIES_GROUP = 'policies.kyverno.io';

const MUTATING_CEL_KINDS: readonly string[] = ['MutatingPolicy', 'NamespacedMutatingPolicy'];

/** Kyverno's other CEL policy kinds, and what they do instead of mutating. */
const NOT_MUTATING: Readonly<Record<string, string>> = {
  ValidatingPolicy: 'validates requests',
  NamespacedValidatingPolicy: 'validates requests',
  ImageValidatingPolicy: 'verifies image signatures and attestations',
  NamespacedImageValidatingPolicy: 'verifies image signatures and attestations',
  GeneratingPolicy: 'creates other resources',
  NamespacedGeneratingPolicy: 'creates other resources',
  DeletingPolicy: 'deletes resources on a schedule',
  NamespacedDeletingPolicy: 'deletes resources on a schedule',
  PolicyException: 'exempts requests from policies',
};

/**
 * Why a document of a Kyverno API group is left out of the set, or undefined when it is not one of
 * those (or is a kind Amender runs).
 */
export function foreignKyvernoKind(apiVersion: string, kind: string): string | undefined {
  const group = parseApiVersion(apiVersion).group;
  if (group === POLICIES_GROUP) {
    // src/mpol takes the versions it reads before this is asked: another version is not one of them.
    if (MUTATING_CEL_KINDS.includes(kind)) return `${kind} of apiVersion ${apiVersion}: Kyverno serves it, and Amender reads it, as ${(mutatingPolicyApiVersions(kind) ?? []).join(', ')}; the document is left out`;
    const does = Object.prototype.hasOwnProperty.call(NOT_MUTATING, kind) ? NOT_MUTATING[kind] : undefined;
    if (does) {
      return `${kind} is not a mutating policy (it ${does}): Amender, a mutating webhook, does not run it${kind === 'PolicyException' ? ', so the policies it exempts requests from run on them' : ''}; the document is left out`;
    }
    return `unknown ${POLICIES_GROUP} kind "${kind}": Amender runs MutatingPolicy and NamespacedMutatingPolicy of this group; the document is left out`;
  }
  if (group === KYVERNO_GROUP && kind !== 'ClusterPolicy' && kind !== 'Policy') {
    if (kind === 'PolicyException') {
      return 'Amender does not apply Kyverno PolicyExceptions: the rules they exempt requests from run on those requests too; the document is left out';
    }
    return `${KYVERNO_GROUP} ${kind} is not a policy Amender runs (it runs ClusterPolicy and Policy mutate rules); the document is left out`;
  }
  return undefined;
}
