/**
 * Reads the cel-spec conformance suite (@bufbuild/cel-spec, JSON form of SimpleTest) and converts its
 * protobuf-JSON values and types into the engine's values and type syntax.
 */
import { tests } from '@bufbuild/cel-spec/testdata/conformance.js';
import { CelOptional, CelUint, Duration, Timestamp, TypeValue, celEquals, celTypeName, type CelValue } from '../../src/cel/index.js';

export const CONFORMANCE_FILES = [
  'basic', 'comparisons', 'conversions', 'fields', 'fp_math', 'integer_math', 'lists', 'logic', 'macros',
  'macros2', 'namespace', 'optionals', 'parse', 'plumbing', 'string', 'string_ext', 'timestamps', 'type_deductions',
] as const;

export interface SimpleTest {
  name: string;
  expr: string;
  description?: string;
  value?: ProtoValue;
  evalError?: unknown;
  typedResult?: { result?: ProtoValue; deducedType?: ProtoType };
  bindings?: Record<string, { value?: ProtoValue }>;
  typeEnv?: { name: string; ident?: { type: ProtoType }; function?: unknown }[];
  container?: string;
  disableCheck?: boolean;
  checkOnly?: boolean;
}

export type ProtoValue = Record<string, any>;
export type ProtoType = Record<string, any>;

interface RawSuite {
  name: string;
  suites?: RawSuite[];
  tests?: { original: SimpleTest }[];
}

export interface ConformanceCase {
  file: string;
  section: string;
  test: SimpleTest;
}

export function conformanceCases(): ConformanceCase[] {
  const out: ConformanceCase[] = [];
  for (const f of (tests as unknown as RawSuite).suites ?? []) {
    if (!(CONFORMANCE_FILES as readonly string[]).includes(f.name)) continue;
    for (const s of f.suites ?? []) for (const t of s.tests ?? []) out.push({ file: f.name, section: s.name, test: t.original });
  }
  return out;
}

const WELL_KNOWN_OK = /google\.protobuf\.(Timestamp|Duration)\b/g;

/** True for tests that need protobuf message types (TestAllTypes, wrappers, Any, Struct, enums). */
export function needsProtobuf(t: SimpleTest): boolean {
  const text = JSON.stringify(t).replace(WELL_KNOWN_OK, '');
  return /TestAllTypes|cel\.expr\.conformance|google\.protobuf\.|enumValue|GlobalEnum|proto2|proto3/.test(text);
}

/** A protobuf-JSON `cel.expr.Type` as CEL type text (cel-go spelling). */
export function typeText(t: ProtoType): string {
  if ('primitive' in t) {
    return ({ BOOL: 'bool', INT64: 'int', UINT64: 'uint', DOUBLE: 'double', STRING: 'string', BYTES: 'bytes' } as Record<string, string>)[t.primitive];
  }
  if ('listType' in t) return `list(${typeText(t.listType.elemType ?? { dyn: {} })})`;
  if ('mapType' in t) return `map(${typeText(t.mapType.keyType)}, ${typeText(t.mapType.valueType)})`;
  if ('messageType' in t) return t.messageType;
  if ('wellKnown' in t) return ({ TIMESTAMP: 'google.protobuf.Timestamp', DURATION: 'google.protobuf.Duration', ANY: 'dyn' } as Record<string, string>)[t.wellKnown];
  if ('null' in t) return 'null_type';
  if ('dyn' in t) return 'dyn';
  if ('typeParam' in t) return t.typeParam;
  if ('type' in t) return t.type && Object.keys(t.type).length ? `type(${typeText(t.type)})` : 'type';
  if ('abstractType' in t) {
    const params = (t.abstractType.parameterTypes ?? []).map(typeText);
    return params.length ? `${t.abstractType.name}(${params.join(', ')})` : t.abstractType.name;
  }
  throw new Error(`unsupported type ${JSON.stringify(t)}`);
}

function base64ToBytes(s: string): Uint8Array {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function durationNs(text: string): bigint {
  const m = /^(-)?(\d+)(?:\.(\d{1,9}))?s$/.exec(text);
  if (!m) throw new Error(`bad duration ${text}`);
  const ns = BigInt(m[2]) * 1_000_000_000n + BigInt((m[3] ?? '').padEnd(9, '0') || '0');
  return m[1] ? -ns : ns;
}

function timestampNs(text: string): bigint {
  const m = /^(.*?)(?:\.(\d{1,9}))?Z$/.exec(text)!;
  const ms = Date.parse(`${m[1]}Z`);
  return BigInt(ms) * 1_000_000n + BigInt((m[2] ?? '').padEnd(9, '0') || '0');
}

/** A protobuf-JSON `cel.expr.Value` as an engine value. */
export function protoValue(v: ProtoValue): CelValue {
  if ('int64Value' in v) return BigInt(v.int64Value);
  if ('uint64Value' in v) return new CelUint(BigInt(v.uint64Value));
  if ('doubleValue' in v) return typeof v.doubleValue === 'string' ? Number(v.doubleValue) : v.doubleValue;
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('bytesValue' in v) return base64ToBytes(v.bytesValue);
  if ('nullValue' in v) return null;
  if ('listValue' in v) return (v.listValue.values ?? []).map(protoValue);
  if ('mapValue' in v) {
    const m = new Map<CelValue, CelValue>();
    for (const e of v.mapValue.entries ?? []) {
      let k = protoValue(e.key);
      if (k instanceof CelUint) k = k.valueOf();
      m.set(k, protoValue(e.value));
    }
    return m;
  }
  if ('typeValue' in v) return TypeValue.of(v.typeValue);
  if ('objectValue' in v) {
    const o = v.objectValue;
    const type = String(o['@type']).replace('type.googleapis.com/', '');
    if (type === 'google.protobuf.Duration') return new Duration(durationNs(o.value));
    if (type === 'google.protobuf.Timestamp') return new Timestamp(timestampNs(o.value));
    throw new Error(`unsupported object ${type}`);
  }
  if (Object.keys(v).length === 0) return null;
  throw new Error(`unsupported value ${JSON.stringify(v)}`);
}

/** Strict equality for test expectations: same CEL type all the way down, NaN equal to NaN. */
export function sameValue(actual: unknown, expected: unknown): boolean {
  if (typeof expected === 'number' && typeof actual === 'number') {
    return Number.isNaN(expected) ? Number.isNaN(actual) : actual === expected;
  }
  if (celTypeName(actual as CelValue) !== celTypeName(expected as CelValue)) return false;
  if (Array.isArray(expected)) {
    const a = actual as unknown[];
    return a.length === expected.length && expected.every((x, i) => sameValue(a[i], x));
  }
  if (expected instanceof Map) {
    const a = actual as Map<unknown, unknown>;
    if (!(a instanceof Map) || a.size !== expected.size) return false;
    for (const [k, x] of expected) {
      const key = [...a.keys()].find((ak) => celEquals(ak, k));
      if (key === undefined || !sameValue(a.get(key), x)) return false;
    }
    return true;
  }
  if (expected instanceof CelOptional) {
    const a = actual as CelOptional;
    return a.hasValue() === expected.hasValue() && (!a.hasValue() || sameValue(a.value(), expected.value()));
  }
  return celEquals(actual, expected);
}
