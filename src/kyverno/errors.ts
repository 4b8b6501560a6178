/**
 * A failure that belongs to one rule (a variable that does not resolve, a patch that does not parse or
 * apply, a list expression that fails…). The engine turns it into the rule's `error` outcome; it never
 * crosses the module boundary as an exception.
 */
export class KyvernoRuleError extends Error {
  override name = 'KyvernoRuleError';
}

/** The message of any thrown value, for outcomes and logs. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * Longest rule message kept whole. Kyverno's messages quote the values they failed on (`Invalid type for:
 * <the value>`): one rule failing on a 1.5 MB list carried the list into the denial's message, each of its
 * causes and the audit annotation, per failing policy (30 policies: a 118 MB reply, well past the deadline).
 */
export const RULE_MESSAGE_MAX_CHARS = 4096;

/** `message`, or its start and end around a note of how much was cut when it is longer than the bound. */
export function boundRuleMessage(message: string): string {
  if (message.length <= RULE_MESSAGE_MAX_CHARS) return message;
  const head = message.slice(0, (RULE_MESSAGE_MAX_CHARS * 3) / 4);
  const tail = message.slice(message.length - RULE_MESSAGE_MAX_CHARS / 4);
  return `${head}… [${message.length - head.length - tail.length} characters cut] …${tail}`;
}
