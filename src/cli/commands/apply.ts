import { stringify } from 'yaml';
import type { Operation } from '../../admission/index.js';
import { flag, listOption, parseArgs, stringOption, UsageError } from '../args.js';
import { readDocument } from '../documents.js';
import type { CliCommand } from '../io.js';
import { formatProblems, loadPolicies } from '../load.js';
import { OPERATIONS, runResource } from '../resource-review.js';

export const APPLY_USAGE = `usage: amender apply --policies PATH... --resource FILE|- [--operation CREATE|UPDATE|DELETE|CONNECT]
                     [--old FILE] [--user NAME] [--group NAME...] [--namespace NS] [--patch] [--quiet]
  Runs one resource through the policies as the API server would send it, and prints the mutated
  resource as YAML (or, with --patch, the JSON Patch of the reply). Exit 1 when the request is denied.
`;

/** `amender apply`: what a resource becomes. */
export const applyCommand: CliCommand = async (argv, io) => {
  const args = parseArgs(argv, {
    policies: 'list',
    resource: 'string',
    operation: 'string',
    old: 'string',
    user: 'string',
    group: 'list',
    namespace: 'string',
    patch: 'boolean',
    quiet: 'boolean',
  });
  if (args.positionals.length > 0) throw new UsageError(`unexpected argument ${args.positionals[0]}`);
  const paths = listOption(args, 'policies');
  if (paths.length === 0) throw new UsageError('--policies PATH... is required');
  const resourcePath = stringOption(args, 'resource');
  if (resourcePath === undefined) throw new UsageError('--resource FILE is required');
  const operation = (stringOption(args, 'operation') ?? 'CREATE').toUpperCase() as Operation;
  if (!OPERATIONS.includes(operation)) throw new UsageError(`--operation must be one of ${OPERATIONS.join(', ')}`);
  const oldPath = stringOption(args, 'old');
  if (operation === 'UPDATE' && oldPath === undefined) throw new UsageError('--operation UPDATE needs --old FILE (the object before the update)');

  const { set, documents } = await loadPolicies(paths, io);
  if (!flag(args, 'quiet') && set.problems.length > 0) io.err(`warning: the policy set has problems:\n${formatProblems(set)}`);
  const object = await readDocument(resourcePath, io);
  const oldObject = oldPath !== undefined ? await readDocument(oldPath, io) : undefined;
  const groups = listOption(args, 'group');
  const outcome = await runResource(set, {
    object,
    oldObject,
    operation,
    namespace: stringOption(args, 'namespace'),
    username: stringOption(args, 'user'),
    groups: groups.length > 0 ? groups : undefined,
    documents,
  });
  if (!outcome.allowed) {
    io.err(`denied (${outcome.status.code}${outcome.status.reason ? ` ${outcome.status.reason}` : ''}): ${outcome.status.message}\n`);
    return 1;
  }
  if (flag(args, 'patch')) io.out(JSON.stringify(outcome.patch, null, 2) + '\n');
  else io.out(stringify(outcome.object, { lineWidth: 0 }));
  return 0;
};
