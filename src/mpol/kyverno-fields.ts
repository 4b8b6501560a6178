/**
 * The spec sections only a Kyverno MutatingPolicy has (`evaluation`, `autogen`, `webhookConfiguration`),
 * checked against the types and fields of Kyverno's CRD schema (config/crds/policies.kyverno.io), as the
 * API server checks them: a value of another type is refused ("must be of type boolean"), and so is an
 * unknown field, as the MutatingAdmissionPolicy decoder refuses one in the other sections. Without this a
 * quoted `enabled: "false"` was read as absent, and a policy meant to stay out of admission ran.
 */
import { getOwn, isJsonObject, type JsonValue } from '../json/index.js';
import { FieldPath, typeError, unknownField, type FieldError } from '../map/index.js';

type Shape = 'boolean' | 'string' | 'int32' | { list: Shape } | { fields: Readonly<Record<string, Shape>> };

const ENABLED: Shape = { fields: { enabled: 'boolean' } };

/** The CRD's schema of each section (the same in v1alpha1, v1beta1 and v1). */
const SECTIONS: Readonly<Record<string, Shape>> = {
  evaluation: {
    fields: {
      admission: ENABLED,
      background: ENABLED,
      mode: 'string',
      mutateExisting: ENABLED,
      skipBackgroundRequests: 'boolean',
      useServerSideApply: 'boolean',
    },
  },
  autogen: {
    fields: {
      mutatingAdmissionPolicy: ENABLED,
      podControllers: { fields: { controllers: { list: 'string' } } },
    },
  },
  webhookConfiguration: { fields: { timeoutSeconds: 'int32' } },
};

const INT32 = 2 ** 31;

function check(value: JsonValue, shape: Shape, path: FieldPath, errors: FieldError[]): void {
  // A null is an absent value to the API server's decoder (and to Amender's readers).
  if (value === null) return;
  if (shape === 'boolean' || shape === 'string') {
    if (typeof value !== shape) errors.push(typeError(path, value, `of type ${shape}`));
    return;
  }
  if (shape === 'int32') {
    if (typeof value !== 'number' || !Number.isInteger(value)) errors.push(typeError(path, value, 'of type integer'));
    else if (value < -INT32 || value >= INT32) errors.push(typeError(path, value, 'a 32-bit integer'));
    return;
  }
  if ('list' in shape) {
    if (!Array.isArray(value)) {
      errors.push(typeError(path, value, 'of type array'));
      return;
    }
    const item = shape.list;
    value.forEach((v, i) => check(v, item, path.index(i), errors));
    return;
  }
  if (!isJsonObject(value)) {
    errors.push(typeError(path, value, 'of type object'));
    return;
  }
  const fields = shape.fields;
  for (const key of Object.keys(value)) {
    const sub = Object.prototype.hasOwnProperty.call(fields, key) ? fields[key] : undefined;
    if (sub === undefined) errors.push(unknownField(path.child(key)));
    else check(getOwn(value, key)!, sub, path.child(key), errors);
  }
}

/** Type and field errors of the Kyverno-only sections of `spec`. */
export function kyvernoSectionErrors(spec: Readonly<Record<string, JsonValue>>): FieldError[] {
  const errors: FieldError[] = [];
  for (const section of Object.keys(SECTIONS)) {
    const value = getOwn(spec, section);
    if (value !== undefined) check(value, SECTIONS[section], FieldPath.root('spec').child(section), errors);
  }
  return errors;
}
