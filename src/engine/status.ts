/**
 * The denial a set of remaining policy errors turns into (spec/map.md §10): one 403 whose reason and
 * message are the first error's, with one cause per error.
 */
import type { AdmissionRequest, Status } from '../admission/types.js';
import type { PolicyError } from '../map/errors.js';

export function denialStatus(errors: readonly PolicyError[], request: AdmissionRequest): Status {
  const first = errors[0];
  return {
    code: 403,
    reason: first.reason,
    message: first.message,
    details: {
      name: request.name ?? '',
      group: request.resource.group,
      kind: request.resource.resource,
      causes: errors.map((e) => ({ message: e.message })),
    },
  };
}

export function internalErrorStatus(message: string): Status {
  return { code: 500, reason: 'InternalError', message: `Internal error occurred: ${message}`, details: { causes: [{ message }] } };
}
