import { hashSecret, MAX_SECRET_LENGTH } from '../../clusters/index.js';
import { parseArgs, UsageError } from '../args.js';
import { readInput } from '../documents.js';
import { CliInputError } from '../errors.js';
import type { CliCommand } from '../io.js';

export const HASH_SECRET_USAGE = `usage: amender hash-secret < SECRET
  Reads a cluster's secret from standard input and prints the hash to configure for it
  (sha256:<hex>, for AMENDER_CLUSTER_<NAME>_SECRET_HASHES or clusters.<name>.secretHashes).
  One trailing newline is ignored. Make the secret random: openssl rand -hex 32
`;

/** Shorter than this, a secret may be guessable from its (unsalted) hash. */
const RECOMMENDED_LENGTH = 32;

/**
 * `amender hash-secret`: the hash Amender compares a presented secret with, computed by the same code,
 * so it cannot differ from what the server checks (as `echo | sha256sum` does when it hashes a newline).
 */
export const hashSecretCommand: CliCommand = async (argv, io) => {
  // An argument that is no long option may be the secret (`-s3cret` too): refused without echoing it.
  const args = argv.every((a) => a.startsWith('--')) ? parseArgs(argv, {}) : undefined;
  if (!args || args.positionals.length > 0) throw new UsageError('the secret is read from standard input, never from the command line (shell history, process lists)');
  const secret = (await readInput('-', io)).replace(/\r?\n$/, '');
  if (secret === '') throw new CliInputError('no secret on standard input');
  if (/\s/.test(secret)) throw new CliInputError('the secret holds a space or a line break: a bearer token or path segment cannot carry it');
  if (secret.length > MAX_SECRET_LENGTH) throw new CliInputError(`the secret is longer than ${MAX_SECRET_LENGTH} characters, which the server refuses`);
  if (secret.length < RECOMMENDED_LENGTH) io.err(`warning: a secret of ${secret.length} characters may be guessed from its hash; use at least ${RECOMMENDED_LENGTH} random characters (openssl rand -hex 32)\n`);
  io.out(`${await hashSecret(secret)}\n`);
  return 0;
};
