import { utf8Length } from '../../json/index.js';
import { answerReview, DEFAULT_LIMITS } from '../../server/index.js';
import { flag, listOption, parseArgs, stringOption, UsageError } from '../args.js';
import { parseSingleDocument, readInput } from '../documents.js';
import { CliInputError, InputTooLargeError } from '../errors.js';
import type { CliCommand } from '../io.js';
import { formatProblems, loadPolicies } from '../load.js';
import { jsonOutput } from '../output.js';

export const REVIEW_USAGE = `usage: amender review --policies PATH... [--input FILE|-] [--quiet]
  Reads an AdmissionReview (JSON or YAML; standard input by default) and prints the AdmissionReview
  reply that POST /mutate would give, its admission warnings also on standard error (\`Warning: …\`).
  Exit 0 when a reply was produced (allowed or denied).
  --quiet   do not list the policy set's load problems on standard error
`;

/** `amender review`: the HTTP endpoint's answer, offline. */
export const reviewCommand: CliCommand = async (argv, io) => {
  const args = parseArgs(argv, { policies: 'list', input: 'string', quiet: 'boolean' });
  if (args.positionals.length > 0) throw new UsageError(`unexpected argument ${args.positionals[0]}`);
  const paths = listOption(args, 'policies');
  if (paths.length === 0) throw new UsageError('--policies PATH... is required');
  // Policies on standard input (`-`) leave it to no review.
  if ((stringOption(args, 'input') ?? '-') === '-' && paths.includes('-')) {
    throw new UsageError('standard input (-) is read once: the review is read from it unless --input FILE, so the policies cannot be');
  }
  const { set } = await loadPolicies(paths, io);
  if (!flag(args, 'quiet') && set.problems.length > 0) io.err(`warning: the policy set has problems:\n${formatProblems(set)}`);
  const input = stringOption(args, 'input') ?? '-';
  const source = input === '-' ? 'standard input' : input;
  // What POST /mutate would refuse unread (413), this refuses too: `size` says how the review passed the limit.
  const tooLarge = (size: string): number => {
    io.err(`amender review: ${size}, more than a request body may be (AMENDER_MAX_BODY_BYTES, ${DEFAULT_LIMITS.maxBodyBytes}): POST /mutate would answer 413\n`);
    return 1;
  };
  let text: string;
  try {
    text = await readInput(input, io, { body: true });
  } catch (err) {
    // Reading stopped past the limit (an endless input: /dev/zero, a pipe).
    if (!(err instanceof CliInputError && err.cause instanceof InputTooLargeError)) throw err;
    return tooLarge(`${source}: the review is longer than ${err.cause.limit} bytes`);
  }
  const bytes = utf8Length(text);
  if (bytes > DEFAULT_LIMITS.maxBodyBytes) return tooLarge(`the review is ${bytes} bytes`);
  const review = parseSingleDocument(text, source);
  const answer = await answerReview(review, set);
  if (answer.status !== 200) {
    io.err(`amender review: ${answer.body.message}\n`);
    return 1;
  }
  // As kubectl shows them; the reply printed below carries them too.
  for (const w of answer.body.response.warnings ?? []) io.err(`Warning: ${w}\n`);
  io.out(jsonOutput(answer.body) + '\n');
  return 0;
};
