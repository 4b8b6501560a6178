import type { CelLibrary, LibraryRegistrar } from '../../library.js';
import { traversalCost } from '../cost.js';

/**
 * Kyverno's user library (kyverno/sdk `extensions/cel/libs/user`): `parseServiceAccount(string)` (also
 * `user.parseServiceAccount`) splits `system:serviceaccount:NAMESPACE:NAME` at the first colon after the
 * prefix; any other user name gives empty fields. Kyverno returns a Go struct, `user.ServiceAccount`
 * (ext.NativeTypes, Go field names): `Namespace` and `Name` are its only fields (another one does not
 * compile), and has() is false for an empty one (cel-go reads a native field as set when it is not
 * Go's zero value). Here a struct of the same name whose value holds the non-empty fields.
 */
const PREFIX = 'system:serviceaccount:';
const SERVICE_ACCOUNT = 'user.ServiceAccount';

function parseServiceAccount(user: string): { Name?: string; Namespace?: string } {
  if (!user.startsWith(PREFIX)) return {};
  const rest = user.slice(PREFIX.length);
  const sep = rest.indexOf(':');
  if (sep === -1) return {};
  const out: { Name?: string; Namespace?: string } = {};
  if (sep > 0) out.Namespace = rest.slice(0, sep);
  if (sep + 1 < rest.length) out.Name = rest.slice(sep + 1);
  return out;
}

export const userLibrary: CelLibrary = {
  name: 'kyverno.user',
  register(r: LibraryRegistrar) {
    r.registerStruct(SERVICE_ACCOUNT, { Name: 'string', Namespace: 'string' });
    for (const name of ['parseServiceAccount', 'user.parseServiceAccount']) {
      r.registerFunction(`${name}(string): ${SERVICE_ACCOUNT}`, parseServiceAccount);
    }
  },
  callCost(fn, args) {
    // Reads the user name once.
    return fn.endsWith('parseServiceAccount') ? 1 + traversalCost(args[0]) : undefined;
  },
};
