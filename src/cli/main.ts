/** The `amender` command: dispatches to a command and turns its errors into messages and exit codes. */
import { UsageError } from './args.js';
import { applyCommand, APPLY_USAGE } from './commands/apply.js';
import { evalCommand, EVAL_USAGE } from './commands/eval.js';
import { hashSecretCommand, HASH_SECRET_USAGE } from './commands/hash-secret.js';
import { reviewCommand, REVIEW_USAGE } from './commands/review.js';
import { testCommand, TEST_USAGE } from './commands/test.js';
import { validateCommand, VALIDATE_USAGE } from './commands/validate.js';
import { webhookConfigCommand, WEBHOOK_CONFIG_USAGE } from './commands/webhook-config.js';
import { CliInputError } from './errors.js';
import type { CliCommand, CliIO } from './io.js';

interface CommandEntry {
  run: CliCommand;
  usage: string;
  summary: string;
}

const COMMANDS: Record<string, CommandEntry> = {
  review: { run: reviewCommand, usage: REVIEW_USAGE, summary: 'answer an AdmissionReview as POST /mutate would' },
  apply: { run: applyCommand, usage: APPLY_USAGE, summary: 'print what a resource becomes (or the JSON Patch)' },
  test: { run: testCommand, usage: TEST_USAGE, summary: 'run golden tests (amender-test.yaml)' },
  validate: { run: validateCommand, usage: VALIDATE_USAGE, summary: 'load and check a policy set, report every problem' },
  eval: { run: evalCommand, usage: EVAL_USAGE, summary: 'evaluate CEL in the Kubernetes admission environment' },
  'webhook-config': { run: webhookConfigCommand, usage: WEBHOOK_CONFIG_USAGE, summary: 'print the MutatingWebhookConfiguration a policy set needs' },
  'hash-secret': { run: hashSecretCommand, usage: HASH_SECRET_USAGE, summary: 'print the sha256:<hex> hash to configure for a cluster secret (read from stdin)' },
};

export const EXIT_OK = 0;
/** Bad input (a file, a review) or a failed check (denial, mismatch, invalid policy). */
export const EXIT_FAILURE = 1;
/** The command line itself is wrong. */
export const EXIT_USAGE = 2;

function help(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return `usage: amender <command> [options]\n\ncommands:\n${lines.join('\n')}\n\n'amender <command> --help' shows a command's options.\n`;
}

export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    const topic = name === 'help' && rest[0] !== undefined && Object.prototype.hasOwnProperty.call(COMMANDS, rest[0]) ? COMMANDS[rest[0]] : undefined;
    (name === undefined ? io.err : io.out)(topic ? topic.usage : help());
    return name === undefined ? EXIT_USAGE : EXIT_OK;
  }
  if (!Object.prototype.hasOwnProperty.call(COMMANDS, name)) {
    io.err(`amender: unknown command ${JSON.stringify(name)}\n\n${help()}`);
    return EXIT_USAGE;
  }
  const command = COMMANDS[name];
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(command.usage);
    return EXIT_OK;
  }
  try {
    return await command.run(rest, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`amender ${name}: ${err.message}\n\n${command.usage}`);
      return EXIT_USAGE;
    }
    if (err instanceof CliInputError) {
      io.err(`amender ${name}: ${err.message}\n`);
      return EXIT_FAILURE;
    }
    io.err(`amender ${name}: internal error: ${(err as Error)?.stack ?? String(err)}\n`);
    return EXIT_FAILURE;
  }
}
