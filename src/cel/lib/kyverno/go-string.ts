import { typeNameOf } from '../../engine/runtime.js';
import { CelOptional, CelUint, Duration, Timestamp } from '../../engine/values.js';
import { celError } from '../errors.js';
import { ImageReference } from './image.js';

/**
 * A dyn argument as the Go string Kyverno's libraries ask cel-go for (utils.ConvertToNative[string]):
 * a string, an image() value as written (kyverno.image converts to its reference text), an optional's
 * value; anything else fails with the text of that value's ConvertToNative in cel-go (common/types),
 * which differs by kind.
 */
export function goStringArgument(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v instanceof ImageReference) return v.toString();
  if (v instanceof CelOptional) {
    if (!v.hasValue()) throw celError('optional.none() dereference');
    return goStringArgument(v.value());
  }
  throw celError(conversionError(v));
}

function conversionError(v: unknown): string {
  if (typeof v === 'boolean') return "type conversion error from bool to 'string'";
  if (typeof v === 'bigint') return "unsupported type conversion from 'int' to string";
  if (v instanceof CelUint) return "unsupported type conversion from 'uint' to string";
  if (typeof v === 'number') return "type conversion error from Double to 'string'";
  if (v instanceof Uint8Array) return "type conversion error from Bytes to 'string'";
  if (v instanceof Duration) return "type conversion error from 'Duration' to 'string'";
  if (v instanceof Timestamp) return "type conversion error from 'Timestamp' to 'string'";
  const name = typeNameOf(v);
  if (name === 'list' || name === 'map') return `type conversion error from ${name} to 'string'`;
  if (name === 'type') return "type conversion not supported for 'type'";
  // null_type and library values.
  return `type conversion error from '${name}' to 'string'`;
}
