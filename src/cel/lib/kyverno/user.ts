import type { CelLibrary, LibraryRegistrar } from '../../library.js';
import { StructValue } from '../../engine/values.js';
import { traversalCost } from '../cost.js';

/**
 * Kyverno's user library (kyverno/sdk `extensions/cel/libs/user`): `parseServiceAccount(string)` (also
 * `user.parseServiceAccount`) splits `system:serviceaccount:NAMESPACE:NAME` at the first colon after the
 * prefix; any other user name gives empty fields. Kyverno returns a Go struct, `user.ServiceAccount`
 * (ext.NativeTypes, Go field names): `Namespace` and `Name` are its only fields (another one does not
 * compile), an empty one reads as "" and has() is false for it (cel-go's IsSet: not Go's zero value),
 * type() is `user.ServiceAccount`, and it equals only another such struct (nativeObj.Equal). Here a
 * native StructValue holding the non-empty fields.
 */
const PREFIX = 'system:serviceaccount:';
const SERVICE_ACCOUNT = 'user.ServiceAccount';

const zeroOf = (field: string) => (field === 'Name' || field === 'Namespace' ? '' : undefined);

function parseServiceAccount(user: string): StructValue {
  const fields = new Map<string, string>();
  if (user.startsWith(PREFIX)) {
    const rest = user.slice(PREFIX.length);
    const sep = rest.indexOf(':');
    if (sep > 0) fields.set('Namespace', rest.slice(0, sep));
    if (sep !== -1 && sep + 1 < rest.length) fields.set('Name', rest.slice(sep + 1));
  }
  return new StructValue(SERVICE_ACCOUNT, fields, zeroOf);
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
