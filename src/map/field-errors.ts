/**
 * Field errors as the API server phrases them (`k8s.io/apimachinery/pkg/util/validation/field`): a
 * dotted field path such as `spec.matchConstraints.resourceRules[0].operations` and a detail message
 * such as `Required value` or `Invalid value: "x": reason`. The policy set adds the document around it.
 */
import { goJsonStringify, strconvQuote } from '../go/index.js';
import type { JsonValue } from '../json/index.js';

export interface FieldError {
  path: string;
  message: string;
}

export class FieldPath {
  private constructor(private readonly text: string) {}

  static root(name: string): FieldPath {
    return new FieldPath(name);
  }

  child(...names: string[]): FieldPath {
    let text = this.text;
    for (const name of names) text = text ? `${text}.${name}` : name;
    return new FieldPath(text);
  }

  index(i: number): FieldPath {
    return new FieldPath(`${this.text}[${i}]`);
  }

  key(k: string): FieldPath {
    return new FieldPath(`${this.text}[${k}]`);
  }

  toString(): string {
    return this.text;
  }
}

/**
 * Renders a value the way field.Error does for the common cases: strings as `%q`, a list as its JSON
 * (encoding/json, since Kubernetes 1.34's "Nicer value rendering in API errors").
 */
export function renderValue(value: unknown): string {
  if (typeof value === 'string') return strconvQuote(value);
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return goJsonStringify(value as JsonValue);
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export function required(path: FieldPath, detail = ''): FieldError {
  return { path: String(path), message: detail ? `Required value: ${detail}` : 'Required value' };
}

export function invalid(path: FieldPath, value: unknown, detail: string): FieldError {
  return { path: String(path), message: `Invalid value: ${renderValue(value)}: ${detail}` };
}

export function notSupported(path: FieldPath, value: unknown, supported: readonly string[]): FieldError {
  const list = supported.map((s) => strconvQuote(s)).join(', ');
  return { path: String(path), message: `Unsupported value: ${renderValue(value)}: supported values: ${list}` };
}

export function duplicate(path: FieldPath, value: unknown): FieldError {
  return { path: String(path), message: `Duplicate value: ${renderValue(value)}` };
}

export function forbidden(path: FieldPath, detail: string): FieldError {
  return { path: String(path), message: `Forbidden: ${detail}` };
}

export function tooMany(path: FieldPath, actual: number, max: number): FieldError {
  return { path: String(path), message: `Too many: ${actual}: must have at most ${max} items` };
}

export function typeError(path: FieldPath, value: unknown, expected: string): FieldError {
  return { path: String(path), message: `Invalid value: ${renderValue(value)}: must be ${expected}` };
}

export function unknownField(path: FieldPath): FieldError {
  return { path: String(path), message: `unknown field "${String(path)}"` };
}
