import { UsageError, parseArgs } from '../args.js';
import type { CliCommand } from '../io.js';
import { formatProblems, loadPolicies } from '../load.js';

export const VALIDATE_USAGE = `usage: amender validate PATH...
  Loads, validates and compiles a policy set (files or folders of YAML/JSON documents) and reports every
  problem with its document, field path and message, then the files the set refuses (a document that
  does not parse, validate or compile: the server keeps their last good version in force, or leaves a
  new one out). Kyverno policies are checked for what would fail or do nothing at admission (JMESPath
  errors, context entries only a cluster can fill, roles, mutate-existing targets, kinds). Exit 1 when
  there is any problem. A PATH that holds no policy is a warning (exit 0 if nothing else is wrong).
`;

/** `amender validate`: every problem of a policy set, or a summary of what it holds. */
export const validateCommand: CliCommand = async (argv, io) => {
  const args = parseArgs(argv, {});
  if (args.positionals.length === 0) throw new UsageError('give at least one PATH (file or folder)');
  const { set, warnings } = await loadPolicies(args.positionals, io);
  // Not problems (the set loads, a server is ready): a source that holds no policy is most likely a typo.
  for (const w of warnings) io.err(`warning: ${w}\n`);
  const counts = Object.entries(set.counts as unknown as Record<string, unknown>)
    .map(([k, v]) => `${k}: ${String(v)}`)
    .join(', ');
  if (set.problems.length > 0) {
    io.err(formatProblems(set));
    const refused = [...new Set(set.problems.filter((p) => p.effect === 'ignored').map((p) => p.source))];
    if (refused.length > 0) {
      io.err(`${refused.length} file${refused.length === 1 ? '' : 's'} refused, whole or in part (a server keeps the last good version in force, or leaves a new one out): ${refused.join(', ')}\n`);
    }
    io.err(`${set.problems.length} problem${set.problems.length === 1 ? '' : 's'} (${counts})\n`);
    return 1;
  }
  io.out(`ok (${counts})\n`);
  return 0;
};
