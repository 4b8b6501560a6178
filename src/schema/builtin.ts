import { hasOwn, internalized } from '../json/index.js';
import { KINDS, PREFIXES, TYPES_TEXT } from './data/builtin.js';
import { goFieldCodes } from './go-fields.js';
import { DEDUCED, NamedRef, UNTYPED_ATOMIC, type Atom, type FieldDef, type ListType, type TypeRef } from './types.js';

/**
 * The built-in kinds' schemas, decoded from the compact table (scripts/schema/encode.ts describes the
 * format) one type at a time, the first time a merge reaches it. Nothing is decoded at import.
 */
export class BuiltinTypes {
  private readonly cache = new Map<string, Atom>();
  private readonly resolver = (id: string): Atom => this.type(id);

  /** The type id of a built-in kind, or undefined. */
  kindTypeId(group: string, version: string, kind: string): string | undefined {
    const key = `${group}/${version}/${kind}`;
    return hasOwn(KINDS, key) ? expandId(KINDS[key]) : undefined;
  }

  /** A lazily resolved reference to a built-in type (full id, e.g. io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta). */
  ref(id: string, relationship?: 'atomic' | 'separable'): NamedRef {
    return new NamedRef(id, this.resolver, relationship);
  }

  /** Decodes (once) the struct type with this full id. */
  type(id: string): Atom {
    let atom = this.cache.get(id);
    if (atom === undefined) {
      atom = this.decode(id);
      this.cache.set(id, atom);
    }
    return atom;
  }

  /** Number of types decoded so far (for tests and benchmarks). */
  get decodedCount(): number {
    return this.cache.size;
  }

  private decode(id: string): Atom {
    const short = shortenId(id);
    const encoded = short !== undefined ? typeIndex().get(short) : undefined;
    // The table leaves out nothing it references; an unknown id here is a bug in the data, not in input.
    if (encoded === undefined) throw new Error(`schema data: unknown type ${id}`);
    const atomic = encoded.startsWith('!');
    const fields = new Map<string, FieldDef>();
    const body = atomic ? encoded.slice(1) : encoded;
    // Names internalized (../json/internalized.ts): merges look a document's keys up in these fields, and
    // read items' merge keys by these names, with every review.
    if (body.length > 0) {
      // The Go facts of the fields, one letter each in the table's field order.
      const go = goFieldCodes(short!);
      let i = 0;
      for (const entry of body.split(';')) {
        const colon = entry.indexOf(':');
        fields.set(internalized(entry.slice(0, colon)), this.decodeField(entry.slice(colon + 1), id, go?.[i++]));
      }
    }
    return { map: { fields, atomic, name: id } };
  }

  private decodeField(code: string, where: string, go: string | undefined): FieldDef {
    let defaultValue: unknown;
    let rest = code;
    const eq = rest.indexOf('=');
    if (eq >= 0) {
      defaultValue = JSON.parse(rest.slice(eq + 1));
      rest = rest.slice(0, eq);
    }
    const [typeCode, patchStrategy, patchMergeKey] = rest.split('|');
    const parser = new TypeCodeParser(typeCode, this, where);
    const field: { -readonly [K in keyof FieldDef]: FieldDef[K] } = { type: parser.parse() };
    if (defaultValue !== undefined) field.default = defaultValue as FieldDef['default'];
    if (patchStrategy) field.patchStrategy = internalized(patchStrategy);
    if (patchMergeKey) field.patchMergeKey = internalized(patchMergeKey);
    if (go !== undefined) field.go = go;
    return field;
  }
}

const SCALARS: Record<string, Atom> = {
  s: { scalar: 'string' },
  i: { scalar: 'integer' },
  n: { scalar: 'number' },
  b: { scalar: 'boolean' },
  u: { scalar: 'untyped' },
  t: { scalar: 'untyped', format: 'date-time' },
  q: { scalar: 'untyped', format: 'quantity' },
  o: { scalar: 'untyped', format: 'int-or-string' },
  x: DEDUCED,
  X: UNTYPED_ATOMIC,
};

const LIST_TYPES: Record<string, ListType> = { a: 'atomic', s: 'set', m: 'map' };

class TypeCodeParser {
  private pos = 0;
  constructor(
    private readonly code: string,
    private readonly types: BuiltinTypes,
    private readonly where: string,
  ) {}

  parse(): TypeRef {
    const t = this.type();
    if (this.pos !== this.code.length) this.fail();
    return t;
  }

  private fail(): never {
    throw new Error(`schema data: bad type code ${JSON.stringify(this.code)} in ${this.where}`);
  }

  private type(): TypeRef {
    const c = this.code[this.pos++];
    const scalar = SCALARS[c];
    if (scalar) return scalar;
    if (c === '@') {
      let end = this.pos;
      while (end < this.code.length && this.code[end] !== '!') end++;
      const id = expandId(this.code.slice(this.pos, end));
      this.pos = end;
      let rel: 'atomic' | 'separable' | undefined;
      if (this.code[this.pos] === '!') {
        rel = this.code[this.pos + 1] === 'a' ? 'atomic' : 'separable';
        this.pos += 2;
      }
      return this.types.ref(id, rel);
    }
    if (c === 'L') {
      const listType = LIST_TYPES[this.code[this.pos++]];
      if (!listType) this.fail();
      let keys: string[] = [];
      if (this.code[this.pos] === '(') {
        const close = this.code.indexOf(')', this.pos);
        if (close < 0) this.fail();
        keys = this.code.slice(this.pos + 1, close).split(',').map(internalized);
        this.pos = close + 1;
      }
      return { list: { elem: this.type(), listType, keys } };
    }
    if (c === 'M') {
      const m = this.code[this.pos++];
      if (m !== 'a' && m !== 'g') this.fail();
      return { map: { elem: this.type(), atomic: m === 'a' } };
    }
    return this.fail();
  }
}

function expandId(short: string): string {
  for (const [prefix, long] of PREFIXES) if (short.startsWith(prefix)) return long + short.slice(prefix.length);
  return short;
}

function shortenId(id: string): string | undefined {
  for (const [prefix, long] of PREFIXES) if (id.startsWith(long)) return prefix + id.slice(long.length);
  return undefined;
}

let index: Map<string, string> | undefined;

/** Short type id -> encoded fields, built from the table's text on the first decode. */
function typeIndex(): Map<string, string> {
  if (index === undefined) {
    index = new Map();
    for (const line of TYPES_TEXT.split('\n')) {
      const tab = line.indexOf('\t');
      index.set(line.slice(0, tab), line.slice(tab + 1));
    }
  }
  return index;
}

/** Every built-in kind as "<group>/<version>/<Kind>". */
export function builtinKinds(): string[] {
  return Object.keys(KINDS);
}
