import { formatRFC3339, parseTime, type GoTime } from '../go/index.js';

/**
 * metav1.MicroTime: the built-in fields that hold one, and its JSON form. The schema data calls these
 * `date-time` like metav1.Time, but MicroTime decodes with time.RFC3339Micro, which wants exactly six
 * fractional digits (`2024-01-01T00:00:00Z` does not decode), and encodes in UTC with six digits.
 */

export const RFC3339_MICRO = '2006-01-02T15:04:05.000000Z07:00';

/** Field name → the structs (OpenAPI ids) that declare it as a MicroTime (k8s.io/api 10b39a39). */
const MICRO_TIME_FIELDS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['acquireTime', new Set(['io.k8s.api.coordination.v1.LeaseSpec', 'io.k8s.api.coordination.v1beta1.LeaseSpec'])],
  [
    'renewTime',
    new Set([
      'io.k8s.api.coordination.v1.LeaseSpec',
      'io.k8s.api.coordination.v1beta1.LeaseSpec',
      'io.k8s.api.coordination.v1alpha2.LeaseCandidateSpec',
      'io.k8s.api.coordination.v1beta1.LeaseCandidateSpec',
    ]),
  ],
  ['pingTime', new Set(['io.k8s.api.coordination.v1alpha2.LeaseCandidateSpec', 'io.k8s.api.coordination.v1beta1.LeaseCandidateSpec'])],
  ['eventTime', new Set(['io.k8s.api.core.v1.Event', 'io.k8s.api.events.v1.Event', 'io.k8s.api.events.v1beta1.Event'])],
  ['lastObservedTime', new Set(['io.k8s.api.core.v1.EventSeries', 'io.k8s.api.events.v1.EventSeries', 'io.k8s.api.events.v1beta1.EventSeries'])],
]);

/** Whether `field` of the struct `struct` (a built-in type id) is a metav1.MicroTime. */
export function isMicroTime(struct: string | undefined, field: string | number | undefined): boolean {
  if (struct === undefined || typeof field !== 'string') return false;
  const structs = MICRO_TIME_FIELDS.get(field);
  return structs !== undefined && structs.has(struct);
}

/** time.Parse(RFC3339Micro, text), or Go's error text. */
export function parseMicroTime(text: string): GoTime | string {
  try {
    return parseTime(RFC3339_MICRO, text);
  } catch (e) {
    // parseTime's own errors are Go's `parsing time ...` texts; anything else is a bug to surface.
    if (e instanceof Error && e.message.startsWith('parsing time ')) return e.message;
    throw e;
  }
}

/** MicroTime.MarshalJSON: `t.UTC().Format(RFC3339Micro)`. */
export function formatMicroTime(t: GoTime): string {
  const seconds = formatRFC3339({ sec: t.sec, nsec: 0, offset: 0 });
  return `${seconds.slice(0, -1)}.${String(Math.floor(t.nsec / 1000)).padStart(6, '0')}Z`;
}

/** Go's error for a MicroTime's text, or undefined when it decodes. */
export function microTimeError(text: string): string | undefined {
  const t = parseMicroTime(text);
  return typeof t === 'string' ? t : undefined;
}
