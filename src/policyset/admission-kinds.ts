/**
 * Documents that look like a MutatingAdmissionPolicy or its binding but are not one Amender reads: a kind
 * or apiVersion mistyped, or a kind the admissionregistration.k8s.io group does not have. Read as plain param
 * objects they did nothing, silently: a one-letter typo in a policy's kind removed the policy with no
 * problem reported, and no last good version kept. Each is now a problem (effect `ignored`) that says why.
 */
import { POLICY_API_VERSIONS } from '../map/index.js';
import { parseApiVersion } from '../schema/index.js';

const GROUP = 'admissionregistration.k8s.io';
const POLICY_KINDS: readonly string[] = ['MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding'];

/**
 * The group's other kinds: read as params, as always (they do nothing here, and `amender test` reports a
 * ValidatingAdmissionPolicy's results as not run rather than as an invalid policy).
 */
const OTHER_KINDS: readonly string[] = ['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding', 'MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'];

/** Edits (insert, delete, replace one character) from `a` to `b`, case-insensitive, or more than `most` when past it. */
function editsWithin(a: string, b: string, most: number): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  if (Math.abs(x.length - y.length) > most) return most + 1;
  let row = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const next = [i];
    for (let j = 1; j <= y.length; j++) next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (x[i - 1] === y[j - 1] ? 0 : 1));
    row = next;
  }
  return row[y.length];
}

/** The policy kind `kind` is a typo of (two edits at most), if any. */
function meantKind(kind: string): string | undefined {
  return POLICY_KINDS.find((k) => editsWithin(kind, k, 2) <= 2);
}

/**
 * Why a document that reads as an attempt at a MutatingAdmissionPolicy (or binding), or has a kind its
 * API group does not have, is left out of the set, with the field at fault; undefined for any other
 * document (a param) and for a policy or binding Amender reads.
 */
export function admissionKindProblem(apiVersion: string, kind: string): { path: 'apiVersion' | 'kind'; message: string } | undefined {
  const { group } = parseApiVersion(apiVersion);
  const meant = meantKind(kind);
  if (group !== GROUP) {
    if (meant === undefined) return undefined;
    // A param of a custom group may share a name with a policy kind only by mistake.
    return { path: 'apiVersion', message: `a ${meant} is of apiVersion ${POLICY_API_VERSIONS.join(', ')}, not ${apiVersion}; the document is left out` };
  }
  if (POLICY_KINDS.includes(kind)) {
    if (POLICY_API_VERSIONS.includes(apiVersion)) return undefined;
    return { path: 'apiVersion', message: `Unsupported value: "${apiVersion}": Amender reads a ${kind} of ${POLICY_API_VERSIONS.join(', ')}; the document is left out` };
  }
  if (OTHER_KINDS.includes(kind)) return undefined;
  const hint = meant ? ` (did you mean ${meant}?)` : '';
  return { path: 'kind', message: `unknown ${GROUP} kind "${kind}"${hint}: Amender reads ${POLICY_KINDS.join(' and ')} of this group; the document is left out` };
}
