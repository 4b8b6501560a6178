import type { JsonValue } from '../json/index.js';
import { BuiltinTypes } from './builtin.js';
import { CrdError, convertCrd } from './crd.js';
import { KyamlTypes } from './kyaml.js';
import { DEDUCED, type ObjectType } from './types.js';

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** `apps/v1` → {group: apps, version: v1}; `v1` → {group: "", version: v1}. */
export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

const gvkKey = (group: string, version: string, kind: string) => `${group}/${version}/${kind}`;

/**
 * Which schema an object of a given apiVersion/kind has: the built-in kinds of Kubernetes 1.36/1.37, plus
 * CustomResourceDefinitions added with `withCrd`/`withCrds` (each returns a new registry; a registry never
 * changes once built). For kinds nobody knows, `deduced()` gives SMD's deduced schema.
 */
export class SchemaRegistry {
  private static shared: SchemaRegistry | undefined;
  private readonly builtinCache = new Map<string, ObjectType | null>();

  private constructor(
    private readonly builtins: BuiltinTypes,
    private readonly crds: ReadonlyMap<string, ObjectType>,
  ) {}

  /** The process-wide registry of built-in kinds (types decoded lazily, shared by every caller). */
  static builtin(): SchemaRegistry {
    return (SchemaRegistry.shared ??= new SchemaRegistry(new BuiltinTypes(), new Map()));
  }

  private static sharedKyaml: SchemaRegistry | undefined;

  /**
   * The built-in kinds as Kyverno's strategic merge sees them (./kyaml.ts): only the kinds kyaml's
   * Kubernetes v1.21.2 data has, with that release's patch strategies and merge keys. For
   * `strategicMerge` only (its default); MutatingAdmissionPolicy keeps `builtin()`.
   */
  static kyaml(): SchemaRegistry {
    return (SchemaRegistry.sharedKyaml ??= new SchemaRegistry(new KyamlTypes(), new Map()));
  }

  /** A registry with its own, empty decode cache (benchmarks of cold lookups; isolation in tests). */
  static fresh(): SchemaRegistry {
    return new SchemaRegistry(new BuiltinTypes(), new Map());
  }

  /** The last `lookup`'s question and answer: a review asks about the same kind again and again. */
  private last: { apiVersion: string; kind: string; type: ObjectType | undefined } | undefined;

  /** The schema of `apiVersion`/`kind`, or undefined when neither the built-ins nor a CRD define it. */
  lookup(apiVersion: string, kind: string): ObjectType | undefined {
    const last = this.last;
    // A registry never changes once built, so the same question has the same answer.
    if (last !== undefined && last.apiVersion === apiVersion && last.kind === kind) return last.type;
    const { group, version } = parseApiVersion(apiVersion);
    const type = this.lookupGvk({ group, version, kind });
    this.last = { apiVersion, kind, type };
    return type;
  }

  lookupGvk(gvk: GroupVersionKind): ObjectType | undefined {
    const key = gvkKey(gvk.group, gvk.version, gvk.kind);
    const crd = this.crds.get(key);
    if (crd) return crd;
    let cached = this.builtinCache.get(key);
    if (cached === undefined) {
      const id = this.builtins.kindTypeId(gvk.group, gvk.version, gvk.kind);
      cached = id === undefined ? null : { ...gvk, source: 'builtin', name: id, root: this.builtins.ref(id) };
      this.builtinCache.set(key, cached);
    }
    return cached ?? undefined;
  }

  /** True for the built-in kinds (whose JSON-patched objects the API server decodes strictly). */
  isBuiltin(gvk: GroupVersionKind): boolean {
    return this.builtins.kindTypeId(gvk.group, gvk.version, gvk.kind) !== undefined;
  }

  /** SMD's `__untyped_deduced_` schema for a kind nobody knows: maps merge key by key, lists are atomic. */
  deduced(gvk: GroupVersionKind): ObjectType {
    return { group: gvk.group, version: gvk.version, kind: gvk.kind, source: 'deduced', name: '__untyped_deduced_', root: DEDUCED };
  }

  /** lookupGvk, falling back to the deduced schema. */
  lookupOrDeduced(gvk: GroupVersionKind): ObjectType {
    return this.lookupGvk(gvk) ?? this.deduced(gvk);
  }

  /** A new registry that also knows the served versions of this CRD. Throws CrdError when it is malformed. */
  withCrd(crd: JsonValue): SchemaRegistry {
    const { registry, errors } = this.withCrds([crd]);
    if (errors.length > 0) throw errors[0];
    return registry;
  }

  /**
   * A new registry with every well-formed CRD of `crds` added; the malformed ones are reported in `errors`
   * (one per document, in order) and left out, so one broken CRD does not hide the others. A later CRD for
   * the same group/version/kind replaces an earlier one; a CRD may not redefine a built-in kind.
   */
  withCrds(crds: readonly JsonValue[]): { registry: SchemaRegistry; errors: CrdError[] } {
    const next = new Map(this.crds);
    const errors: CrdError[] = [];
    for (const crd of crds) {
      try {
        const types = convertCrd(crd, this.builtins);
        for (const t of types) {
          if (this.isBuiltin(t)) {
            throw new CrdError(`CustomResourceDefinition ${JSON.stringify(t.name)}: ${t.group}/${t.version} ${t.kind} is a built-in kind`);
          }
        }
        for (const t of types) next.set(gvkKey(t.group, t.version, t.kind), t);
      } catch (err) {
        if (!(err instanceof CrdError)) throw err;
        errors.push(err);
      }
    }
    return { registry: new SchemaRegistry(this.builtins, next), errors };
  }

  /** "<group>/<version>/<Kind>" of every CRD version this registry knows. */
  crdKinds(): string[] {
    return [...this.crds.keys()];
  }
}
