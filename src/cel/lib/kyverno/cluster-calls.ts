import type { Expr } from '../../engine/ast.js';
import { parse } from '../../engine/parser.js';

/**
 * Kyverno CEL libraries that reach a cluster or the network: a webhook that runs off-cluster has
 * neither, so a policy calling them is refused when it is loaded (not when a request arrives).
 */
export const CLUSTER_LIBRARIES: Readonly<Record<string, string>> = {
  resource: 'reads objects from the Kubernetes API (resource.Get/List/Post)',
  http: 'makes HTTP requests (http.Get/Post/Client)',
  imagedata: 'fetches image metadata from a container registry (image.GetMetadata, imagedata.Get)',
  globalContext: "reads Kyverno's GlobalContextEntry cache, which only a Kyverno installation fills (globalContext.Get)",
};

export interface ClusterCall {
  /** `resource.Get`, `http.Get`... */
  call: string;
  library: string;
  reason: string;
}

/** Every sub-expression of `e`, `e` first. */
function* nodes(e: Expr): Generator<Expr> {
  yield e;
  switch (e.kind) {
    case 'call':
      if (e.target) yield* nodes(e.target);
      for (const a of e.args) yield* nodes(a);
      return;
    case 'select':
      yield* nodes(e.operand);
      return;
    case 'list':
      for (const x of e.elements) yield* nodes(x);
      return;
    case 'map':
      for (const x of e.entries) {
        yield* nodes(x.key);
        yield* nodes(x.value);
      }
      return;
    case 'struct':
      for (const f of e.fields) yield* nodes(f.value);
      return;
    case 'comprehension':
      for (const x of [e.iterRange, e.accuInit, e.loopCondition, e.loopStep, e.result]) yield* nodes(x);
      return;
    default:
      return;
  }
}

/** Whether an expression reads the identifier `name` (false when it does not parse). */
export function referencesIdentifier(expression: string, name: string): boolean {
  const parsed = parse(expression);
  if (!parsed.expr) return false;
  for (const n of nodes(parsed.expr)) if (n.kind === 'ident' && n.name === name) return true;
  return false;
}

/** The cluster/network library calls of an expression (none when it does not parse: the compiler says why). */
export function findClusterCalls(expression: string): ClusterCall[] {
  const parsed = parse(expression);
  if (!parsed.expr) return [];
  const out: ClusterCall[] = [];
  for (const e of nodes(parsed.expr)) {
    if (e.kind !== 'call' || !e.target || e.target.kind !== 'ident') continue;
    const name = e.target.name;
    // Kyverno's imagedata library is the variable `image` (the image() function is another library).
    const library = name === 'image' && /^[Gg]etMetadata$/.test(e.fn) ? 'imagedata' : name;
    if (Object.prototype.hasOwnProperty.call(CLUSTER_LIBRARIES, library)) out.push({ call: `${name}.${e.fn}`, library, reason: CLUSTER_LIBRARIES[library] });
  }
  return out;
}
