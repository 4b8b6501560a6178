/**
 * Error replies that are not AdmissionReviews (the request could not be read or routed): a
 * Kubernetes-style `Status` object, so a person or the API server's log shows a familiar shape.
 */
/**
 * 499 (nginx's "client closed request") is never sent: it names, in logs and metrics, a request whose client
 * went away before its answer.
 */
export type HttpErrorCode = 400 | 401 | 404 | 405 | 408 | 413 | 415 | 499 | 500 | 503;

const REASONS: Record<HttpErrorCode, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  408: 'Timeout',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  499: 'ClientClosedRequest',
  500: 'InternalError',
  503: 'ServiceUnavailable',
};

export interface StatusBody {
  apiVersion: 'v1';
  kind: 'Status';
  status: 'Failure';
  code: HttpErrorCode;
  reason: string;
  message: string;
}

export function statusBody(code: HttpErrorCode, message: string): StatusBody {
  return { apiVersion: 'v1', kind: 'Status', status: 'Failure', code, reason: REASONS[code], message };
}
