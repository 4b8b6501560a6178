/**
 * The denials of the pipeline (spec/map.md §10): a 403 naming the request's resource, one cause per error;
 * for a set of remaining policy errors, the reason and message are the first error's.
 */
import type { AdmissionRequest, Status } from '../admission/index.js';
import { getOwn, isJsonObject } from '../json/index.js';
import type { PolicyError } from '../map/index.js';

/** `name` defaults to the request's name (Amender's own denials: Kyverno's, and those of a stopped review). */
export function forbiddenStatus(request: AdmissionRequest, reason: PolicyError['reason'], message: string, causes: readonly string[], name = request.name ?? ''): Status {
  return {
    code: 403,
    reason,
    message,
    details: {
      name,
      group: request.resource.group,
      kind: request.resource.resource,
      causes: causes.map((m) => ({ message: m })),
    },
  };
}

/**
 * The name kube-apiserver's admission.NewForbidden gives a policy denial (pkg/admission/errors.go
 * extractResourceName): the request's name; else the object's metadata.name, else its
 * metadata.generateName (no name is generated before admission), else "Unknown".
 */
function deniedResourceName(request: AdmissionRequest): string {
  if (request.name) return request.name;
  const object = request.object;
  const metadata = isJsonObject(object) ? getOwn(object, 'metadata') : undefined;
  if (isJsonObject(metadata)) {
    const name = getOwn(metadata, 'name');
    if (typeof name === 'string' && name !== '') return name;
    const generateName = getOwn(metadata, 'generateName');
    if (typeof generateName === 'string' && generateName !== '') return generateName;
  }
  return 'Unknown';
}

/** The denial of the remaining MutatingAdmissionPolicy errors, as the policy plugin's Dispatch builds it. */
export function denialStatus(errors: readonly PolicyError[], request: AdmissionRequest): Status {
  return forbiddenStatus(request, errors[0].reason, errors[0].message, errors.map((e) => e.message), deniedResourceName(request));
}
