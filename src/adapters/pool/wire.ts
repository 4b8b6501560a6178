/**
 * How a review answer crosses from a review worker to the main thread (structured clone, protocol.ts).
 *
 *   toWire(answer, packer)      in the worker: an admission reply as its JSON text, the policies'
 *                               outcomes packed into the message's table (OutcomePacker)
 *   fromWire(wire, outcomes)    on the main thread: the answer again, its reply parsed only if something
 *                               reads it, its outcomes from the message's table
 *
 * The outcomes feed the main thread's per-policy metrics and failure logs. Structured clone walks a list
 * of objects property by property, and builds them again the same way: with 50 policies that cost about
 * 650 k instructions per review between the two threads (as much as a whole MAP review), most of it on
 * the main thread, which every request goes through. Packed, a string table and one Float64Array cross
 * (about 165 k with the packing), one table for all the answers of a message: a table per answer
 * cost ~8 % of the Node server's throughput under load (bench/README.md, "Stop 46's run"). What the main
 * thread never reads (an outcome's detail text, which may quote the object, and its param) stays in the
 * worker.
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

/**
 * Packs the outcomes of the answers a worker sends in one message into one table (PackedOutcomes): each
 * answer gets its range of it (`add`), the message the table (`take`, which starts the next one).
 */
export class OutcomePacker {
  private strings: string[] = [];
  private index = new Map<string, number>();
  private fields: number[] = [];

  /** The range [from, to) of the table that now holds `outcomes`. */
  add(outcomes: readonly PolicyOutcome[]): { from: number; to: number } {
    const fields = this.fields;
    const from = fields.length;
    for (const o of outcomes) {
      fields.push(this.ref(o.engine), this.ref(o.policy), this.ref(o.binding), o.pass, this.ref(o.result), o.ignored ? 1 : 0, this.ref(o.failurePolicy), this.ref(o.aborted), o.durationMs, o.rules ? o.rules.length : NONE);
      for (const r of o.rules ?? []) fields.push(this.ref(r.rule), this.ref(r.status), r.durationMs);
    }
    return { from, to: fields.length };
  }

  /** The table of what was added since the last `take`; undefined when nothing was. */
  take(): PackedOutcomes | undefined {
    if (this.fields.length === 0) return undefined;
    const packed = { strings: this.strings, fields: Float64Array.from(this.fields) };
    this.strings = [];
    this.index = new Map();
    this.fields = [];
    return packed;
  }

  private ref(s: string | undefined): number {
    if (s === undefined) return NONE;
    let at = this.index.get(s);
    if (at === undefined) this.index.set(s, (at = this.strings.push(s) - 1));
    return at;
  }
}

/** The outcomes OutcomePacker packed in [from, to), without what it leaves in the worker (detail, param, policyKind). */
export function unpackOutcomes({ strings, fields }: PackedOutcomes, from: number, to: number): PolicyOutcome[] {
  const text = (at: number): string => strings[at]!;
  const out: PolicyOutcome[] = [];
  let i = from;
  while (i < to) {
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

/** An admission reply crosses as its JSON text (serialized here, off the main thread), its outcomes packed by `packer`. */
export function toWire(answer: ReviewAnswer, packer: OutcomePacker): WireAnswer {
  if (answer.status !== 200) return crossable(answer);
  const { body, outcomes, ...rest } = answer;
  if (!outcomes) return { ...rest, bodyText: replyText(body) };
  const { from, to } = packer.add(outcomes);
  return { ...rest, bodyText: replyText(body), outcomesFrom: from, outcomesTo: to };
}

/** An answer of a message whose packed outcomes are `outcomes`. */
export function fromWire(wire: WireAnswer, outcomes: PackedOutcomes | undefined): ReviewAnswer {
  if (!('bodyText' in wire)) return wire;
  return new AdmittedFromWire(wire, outcomes);
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

  constructor(wire: Extract<WireAnswer, { bodyText: string }>, packed: PackedOutcomes | undefined) {
    this.outcome = wire.outcome;
    this.uid = wire.uid;
    this.patchOps = wire.patchOps;
    this.bodyText = wire.bodyText;
    if (wire.subject !== undefined) this.subject = wire.subject;
    if (wire.outcomesFrom !== undefined && wire.outcomesTo !== undefined && packed) this.outcomes = unpackOutcomes(packed, wire.outcomesFrom, wire.outcomesTo);
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
