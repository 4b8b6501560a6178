import type { CelLibrary, LibraryRegistrar } from '../../library.js';
import { traversalCost } from '../cost.js';

/**
 * Kyverno's user library (kyverno/sdk `extensions/cel/libs/user`): `parseServiceAccount(string)` (also
 * `user.parseServiceAccount`) splits `system:serviceaccount:NAMESPACE:NAME` at the first colon after the
 * prefix; any other user name gives empty fields. Kyverno returns a Go struct whose fields are read as
 * `Namespace` and `Name` (its Go field names); here a map with those two keys, always both present, so
 * field selection and `has()` read the same.
 */
const PREFIX = 'system:serviceaccount:';

function parseServiceAccount(user: string): Map<string, string> {
  let namespace = '';
  let name = '';
  if (user.startsWith(PREFIX)) {
    const rest = user.slice(PREFIX.length);
    const sep = rest.indexOf(':');
    if (sep !== -1) {
      namespace = rest.slice(0, sep);
      name = rest.slice(sep + 1);
    }
  }
  return new Map([['Name', name], ['Namespace', namespace]]);
}

export const userLibrary: CelLibrary = {
  name: 'kyverno.user',
  register(r: LibraryRegistrar) {
    for (const name of ['parseServiceAccount', 'user.parseServiceAccount']) {
      r.registerFunction(`${name}(string): map<string, string>`, parseServiceAccount);
    }
  },
  callCost(fn, args) {
    // Reads the user name once.
    return fn.endsWith('parseServiceAccount') ? 1 + traversalCost(args[0]) : undefined;
  },
};
