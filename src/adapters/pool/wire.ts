/**
 * How a review answer crosses from a review worker to the main thread (structured clone, protocol.ts).
 *
 *   toWire(answer)    in the worker: an admission reply as its JSON text, the policies' outcomes packed
 *   fromWire(wire)    on the main thread: the answer again, its reply parsed only if something reads it
 *
 * The outcomes feed the main thread's per-policy metrics and failure logs. Structured clone walks a list
 * of objects property by property, and builds them again the same way: with 50 policies that cost about
 * 650 k instructions per review between the two threads (as much as a whole MAP review), most of it on
 * the main thread, which every request goes through. Packed, a string table and one Float64Array cross
 * (about 165 k with the packing). What the main thread never reads (an outcome's detail text, which may
 * quote the object, and its param) stays in the worker.
 */
import { replyText, type ReviewReply } from '../../admission/index.js';
import type { PolicyOutcome } from '../../engine/index.js';
import type { ReviewAnswer } from '../../server/index.js';
import type { PackedOutcomes, WireAnswer } from './protocol.js';

/** Numbers per outcome in PackedOutcomes.fields, then RULE_FIELDS per rule of it. */
const OUTCOME_FIELDS = 10;
const RULE_FIELDS = 3;
/** An absent optional string. */
const NONE = -1;

export function packOutcomes(outcomes: readonly PolicyOutcome[]): PackedOutcomes {
  let rules = 0;
  for (const o of outcomes) if (o.rules) rules += o.rules.length;
  const fields = new Float64Array(OUTCOME_FIELDS * outcomes.length + RULE_FIELDS * rules);
  const strings: string[] = [];
  const index = new Map<string, number>();
  const ref = (s: string | undefined): number => {
    if (s === undefined) return NONE;
    let at = index.get(s);
    if (at === undefined) index.set(s, (at = strings.push(s) - 1));
    return at;
  };
  let i = 0;
  for (const o of outcomes) {
    fields[i++] = ref(o.engine);
    fields[i++] = ref(o.policy);
    fields[i++] = ref(o.binding);
    fields[i++] = o.pass;
    fields[i++] = ref(o.result);
    fields[i++] = o.ignored ? 1 : 0;
    fields[i++] = ref(o.failurePolicy);
    fields[i++] = ref(o.aborted);
    fields[i++] = o.durationMs;
    fields[i++] = o.rules ? o.rules.length : NONE;
    for (const r of o.rules ?? []) {
      fields[i++] = ref(r.rule);
      fields[i++] = ref(r.status);
      fields[i++] = r.durationMs;
    }
  }
  return { strings, fields };
}

/** The outcomes packOutcomes packed, without what it leaves in the worker (detail, param, policyKind). */
export function unpackOutcomes({ strings, fields }: PackedOutcomes): PolicyOutcome[] {
  const text = (at: number): string => strings[at]!;
  const out: PolicyOutcome[] = [];
  let i = 0;
  while (i < fields.length) {
    const o: PolicyOutcome = {
      engine: text(fields[i]!) as PolicyOutcome['engine'],
      policy: text(fields[i + 1]!),
      pass: fields[i + 3] as PolicyOutcome['pass'],
      result: text(fields[i + 4]!) as PolicyOutcome['result'],
      durationMs: fields[i + 8]!,
    };
    if (fields[i + 2] !== NONE) o.binding = text(fields[i + 2]!);
    if (fields[i + 5] === 1) o.ignored = true;
    if (fields[i + 6] !== NONE) o.failurePolicy = text(fields[i + 6]!) as NonNullable<PolicyOutcome['failurePolicy']>;
    if (fields[i + 7] !== NONE) o.aborted = text(fields[i + 7]!) as NonNullable<PolicyOutcome['aborted']>;
    const ruleCount = fields[i + 9]!;
    i += OUTCOME_FIELDS;
    if (ruleCount !== NONE) {
      const rules: { rule: string; status: string; durationMs: number }[] = [];
      for (let r = 0; r < ruleCount; r++, i += RULE_FIELDS) rules.push({ rule: text(fields[i]!), status: text(fields[i + 1]!), durationMs: fields[i + 2]! });
      o.rules = rules;
    }
    out.push(o);
  }
  return out;
}

/** An admission reply crosses as its JSON text (serialized here, off the main thread), its outcomes packed. */
export function toWire(answer: ReviewAnswer): WireAnswer {
  if (answer.status !== 200) return crossable(answer);
  const { body, outcomes, ...rest } = answer;
  return { ...rest, bodyText: replyText(body), ...(outcomes ? { packedOutcomes: packOutcomes(outcomes) } : {}) };
}

export function fromWire(wire: WireAnswer): ReviewAnswer {
  if (!('bodyText' in wire)) return wire;
  return new AdmittedFromWire(wire);
}

type Admitted = Extract<ReviewAnswer, { status: 200 }>;

/**
 * An admitted answer read from the wire: the route sends `bodyText` as it is, and the reply is parsed
 * only when something reads `body`. The getter is the class's, not defined on each answer: with an
 * accessor (and a new getter) defined on each, every answer had a hidden class of its own, and under load
 * each answer's message outlived V8's young-generation collections until a full one (1.6 MB promoted per
 * scavenge against 10 KB; bench/README.md, "What stop 25 did").
 */
class AdmittedFromWire implements Admitted {
  readonly status = 200;
  readonly outcome: Admitted['outcome'];
  readonly uid: string;
  readonly patchOps: number;
  readonly bodyText: string;
  readonly subject?: Admitted['subject'];
  readonly outcomes?: readonly PolicyOutcome[];
  #body: ReviewReply | undefined;

  constructor(wire: Extract<WireAnswer, { bodyText: string }>) {
    this.outcome = wire.outcome;
    this.uid = wire.uid;
    this.patchOps = wire.patchOps;
    this.bodyText = wire.bodyText;
    if (wire.subject !== undefined) this.subject = wire.subject;
    if (wire.packedOutcomes !== undefined) this.outcomes = unpackOutcomes(wire.packedOutcomes);
  }

  get body(): ReviewReply {
    return (this.#body ??= JSON.parse(this.bodyText) as ReviewReply);
  }
}

/** An Error does not keep its class (nor, in Node 20, its stack) across threads: the access log gets its text. */
function crossable(answer: Exclude<ReviewAnswer, { status: 200 }>): Exclude<ReviewAnswer, { status: 200 }> {
  if (!('error' in answer) || answer.error === undefined) return answer;
  const error = answer.error as { stack?: string };
  return { ...answer, error: String(error?.stack ?? answer.error) };
}
