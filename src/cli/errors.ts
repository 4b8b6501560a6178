/** Input a command cannot use (a missing file, a malformed review): reported on stderr, exit code 1. */
export class CliInputError extends Error {
  override name = 'CliInputError';
}

/** `node:fs` errors carry a code; say it the way a person would. */
export function describeFsError(path: string, err: unknown): string {
  const code = (err as { code?: string })?.code;
  if (code === 'ENOENT') return `${path}: no such file or folder`;
  if (code === 'EACCES') return `${path}: permission denied`;
  if (code === 'EISDIR') return `${path}: is a folder`;
  if (err instanceof NotRegularFileError) return `${path}: ${err.message}`;
  return `${path}: ${(err as Error)?.message ?? String(err)}`;
}

/**
 * An input (a file, standard input) longer than MAX_INPUT_BYTES: found while reading it, so an endless
 * input (/dev/zero, a pipe) is refused after that many bytes instead of filling memory.
 */
export class InputTooLargeError extends Error {
  override name = 'InputTooLargeError';
  constructor(readonly limit: number) {
    super(`more than ${limit} bytes, the most the CLI reads of one input (the default request body limit, AMENDER_MAX_BODY_BYTES)`);
  }
}

/** A path found in a folder that is not a regular file (a FIFO, socket or device): not read. */
export class NotRegularFileError extends Error {
  override name = 'NotRegularFileError';
  constructor(what: string) {
    super(`not a regular file but ${what}; a file found in a folder is read only when it is a regular file`);
  }
}
