/**
 * The denials of the pipeline (spec/map.md §10): a 403 naming the request's resource, one cause per error;
 * for a set of remaining policy errors, the reason and message are the first error's.
 */
import type { AdmissionRequest, Status } from '../admission/index.js';
import type { PolicyError } from '../map/index.js';

export function forbiddenStatus(request: AdmissionRequest, reason: PolicyError['reason'], message: string, causes: readonly string[]): Status {
  return {
    code: 403,
    reason,
    message,
    details: {
      name: request.name ?? '',
      group: request.resource.group,
      kind: request.resource.resource,
      causes: causes.map((m) => ({ message: m })),
    },
  };
}

export function denialStatus(errors: readonly PolicyError[], request: AdmissionRequest): Status {
  return forbiddenStatus(request, errors[0].reason, errors[0].message, errors.map((e) => e.message));
}
