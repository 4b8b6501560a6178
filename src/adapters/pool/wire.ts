/**
 * How a worker's review answers cross to the main thread (structured clone, protocol.ts).
 *
 *   packer.add(id, answer)        in the worker: an admission reply as its JSON text, appended to the
 *   packer.take()                 message's text; its other fields and its policies' outcomes as numbers
 *                                 (strings by index into one table); the message's PackedAnswers
 *   unpackAnswers(packed)         on the main thread: the answers again, in order, each reply parsed only
 *                                 if something reads it
 *
 * Structured clone walks an object property by property and builds it again the same way on the other
 * side, and the main thread, which every request goes through, pays the second half. Sent as objects, a
 * message of 8 answers took ~30 µs to read there (Node 24); packed, one string, one string table and one
 * Float64Array cross, ~8 µs (bench/JOURNAL.md, "Stop 47's run"). The outcomes feed the main thread's
 * per-policy metrics and failure logs; what it never reads (an outcome's detail text, which may quote the
 * object, and its param) stays in the worker. An answer other than an admission reply (an error, a 503)
 * crosses as it is.
 */
import { replyText, type ReviewReply } from '../../admission/index.js';
import type { PolicyOutcome } from '../../engine/index.js';
import type { ReviewAnswer } from '../../server/index.js';
import type { OtherAnswer, PackedAnswers } from './protocol.js';

type Admitted = Extract<ReviewAnswer, { status: 200 }>;
type NotAdmitted = Exclude<ReviewAnswer, Admitted>;

/**
 * Numbers per admitted answer in PackedAnswers.numbers: id, patchOps, outcome, uid, the subject's kind,
 * namespace, name and operation (NONE: no subject), the reply's start and end in `text`, the outcome
 * count (NONE: no outcomes); then OUTCOME_FIELDS per outcome, each followed by RULE_FIELDS per rule.
 */
const ANSWER_FIELDS = 11;
const OUTCOME_FIELDS = 10;
const RULE_FIELDS = 3;
/** An absent string, subject or list. */
const NONE = -1;

/** Packs the answers a worker sends in one message (PackedAnswers); `take` starts the next message. */
export class AnswerPacker {
  private text = '';
  private strings: string[] = [];
  private index = new Map<string, number>();
  private numbers: number[] = [];
  private others: OtherAnswer[] = [];
  private count = 0;

  /** Answers added since the last `take`. */
  get size(): number {
    return this.count;
  }

  add(id: number, answer: ReviewAnswer): void {
    const at = this.count++;
    if (answer.status !== 200) {
      this.others.push({ at, id, answer: crossable(answer) });
      return;
    }
    const reply = answer.bodyText ?? replyText(answer.body);
    const { subject, outcomes } = answer;
    const start = this.text.length;
    this.text += reply;
    this.numbers.push(
      id,
      answer.patchOps,
      this.ref(answer.outcome),
      this.ref(answer.uid),
      subject ? this.ref(subject.kind) : NONE,
      subject ? this.ref(subject.namespace) : NONE,
      subject ? this.ref(subject.name) : NONE,
      subject ? this.ref(subject.operation) : NONE,
      start,
      this.text.length,
      outcomes ? outcomes.length : NONE,
    );
    for (const o of outcomes ?? []) this.addOutcome(o);
  }

  /** What was added since the last `take`; undefined when nothing was. */
  take(): PackedAnswers | undefined {
    if (this.count === 0) return undefined;
    const packed: PackedAnswers = { count: this.count, text: this.text, strings: this.strings, numbers: Float64Array.from(this.numbers) };
    if (this.others.length > 0) packed.others = this.others;
    this.text = '';
    this.strings = [];
    this.index = new Map();
    this.numbers = [];
    this.others = [];
    this.count = 0;
    return packed;
  }

  private addOutcome(o: PolicyOutcome): void {
    const numbers = this.numbers;
    numbers.push(this.ref(o.engine), this.ref(o.policy), this.ref(o.binding), o.pass, this.ref(o.result), o.ignored ? 1 : 0, this.ref(o.failurePolicy), this.ref(o.aborted), o.durationMs, o.rules ? o.rules.length : NONE);
    for (const r of o.rules ?? []) numbers.push(this.ref(r.rule), this.ref(r.status), r.durationMs);
  }

  private ref(s: string | undefined): number {
    if (s === undefined) return NONE;
    let at = this.index.get(s);
    if (at === undefined) this.index.set(s, (at = this.strings.push(s) - 1));
    return at;
  }
}

/** The answers of a message, in the order they were added, with the ids of their reviews. */
export function unpackAnswers(packed: PackedAnswers): { id: number; answer: ReviewAnswer }[] {
  const { count, numbers } = packed;
  const others = packed.others ?? [];
  const answers: { id: number; answer: ReviewAnswer }[] = [];
  let next = 0;
  let i = 0;
  for (let at = 0; at < count; at++) {
    const other = others[next];
    if (other !== undefined && other.at === at) {
      answers.push({ id: other.id, answer: other.answer });
      next++;
      continue;
    }
    const { answer, end } = readAdmitted(packed, i);
    answers.push({ id: numbers[i]!, answer });
    i = end;
  }
  return answers;
}

/** The admitted answer whose numbers start at `i`, and where the next answer starts. */
function readAdmitted({ text, strings, numbers }: PackedAnswers, i: number): { answer: AdmittedFromWire; end: number } {
  const string = (at: number): string => stringAt(strings, numbers, at);
  const subject = numbers[i + 4] === NONE ? undefined : { kind: string(i + 4), namespace: string(i + 5), name: string(i + 6), operation: string(i + 7) };
  const outcomeCount = numbers[i + 10]!;
  let end = i + ANSWER_FIELDS;
  let outcomes: PolicyOutcome[] | undefined;
  if (outcomeCount !== NONE) {
    outcomes = [];
    for (let k = 0; k < outcomeCount; k++) end = readOutcome(strings, numbers, end, outcomes);
  }
  const answer = new AdmittedFromWire(string(i + 2) as Admitted['outcome'], string(i + 3), numbers[i + 1]!, text.slice(numbers[i + 8], numbers[i + 9]), subject, outcomes);
  return { answer, end };
}

/**
 * An admitted answer read from the wire: the route sends `bodyText` as it is, and the reply is parsed
 * only when something reads `body`. The getter is the class's, not defined on each answer: with an
 * accessor (and a new getter) defined on each, every answer had a hidden class of its own, and under load
 * each answer's message outlived V8's young-generation collections until a full one (1.6 MB promoted per
 * scavenge against 10 KB; bench/JOURNAL.md, "What stop 25 did").
 */
class AdmittedFromWire implements Admitted {
  readonly status = 200;
  readonly subject?: Admitted['subject'];
  readonly outcomes?: readonly PolicyOutcome[];
  #body: ReviewReply | undefined;

  constructor(
    readonly outcome: Admitted['outcome'],
    readonly uid: string,
    readonly patchOps: number,
    readonly bodyText: string,
    subject: Admitted['subject'],
    outcomes: readonly PolicyOutcome[] | undefined,
  ) {
    if (subject !== undefined) this.subject = subject;
    if (outcomes !== undefined) this.outcomes = outcomes;
  }

  get body(): ReviewReply {
    return (this.#body ??= JSON.parse(this.bodyText) as ReviewReply);
  }
}

/** Reads the outcome at `i` into `out` (without detail, param and policyKind, which stay in the worker); returns where the next starts. */
function readOutcome(strings: readonly string[], numbers: Float64Array, i: number, out: PolicyOutcome[]): number {
  const string = (at: number): string => stringAt(strings, numbers, at);
  const o: PolicyOutcome = {
    engine: string(i) as PolicyOutcome['engine'],
    policy: string(i + 1),
    pass: numbers[i + 3] as PolicyOutcome['pass'],
    result: string(i + 4) as PolicyOutcome['result'],
    durationMs: numbers[i + 8]!,
  };
  if (numbers[i + 2] !== NONE) o.binding = string(i + 2);
  if (numbers[i + 5] === 1) o.ignored = true;
  if (numbers[i + 6] !== NONE) o.failurePolicy = string(i + 6) as NonNullable<PolicyOutcome['failurePolicy']>;
  if (numbers[i + 7] !== NONE) o.aborted = string(i + 7) as NonNullable<PolicyOutcome['aborted']>;
  const ruleCount = numbers[i + 9]!;
  let at = i + OUTCOME_FIELDS;
  if (ruleCount !== NONE) {
    const rules: { rule: string; status: string; durationMs: number }[] = [];
    for (let r = 0; r < ruleCount; r++, at += RULE_FIELDS) rules.push({ rule: string(at), status: string(at + 1), durationMs: numbers[at + 2]! });
    o.rules = rules;
  }
  out.push(o);
  return at;
}

/** The string `numbers[at]` refers to. */
function stringAt(strings: readonly string[], numbers: Float64Array, at: number): string {
  return strings[numbers[at]!]!;
}

/** An Error does not keep its class (nor, in Node 20, its stack) across threads: the access log gets its text. */
function crossable(answer: NotAdmitted): NotAdmitted {
  if (!('error' in answer) || answer.error === undefined) return answer;
  const error = answer.error as { stack?: string };
  return { ...answer, error: String(error?.stack ?? answer.error) };
}
