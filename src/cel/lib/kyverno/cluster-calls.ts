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

function walk(e: Expr, out: ClusterCall[]): void {
  switch (e.kind) {
    case 'call': {
      if (e.target && e.target.kind === 'ident') {
        const name = e.target.name;
        // Kyverno's imagedata library is the variable `image` (the image() function is another library).
        const library = name === 'image' && /^[Gg]etMetadata$/.test(e.fn) ? 'imagedata' : name;
        if (Object.prototype.hasOwnProperty.call(CLUSTER_LIBRARIES, library)) out.push({ call: `${name}.${e.fn}`, library, reason: CLUSTER_LIBRARIES[library] });
      }
      if (e.target) walk(e.target, out);
      for (const a of e.args) walk(a, out);
      return;
    }
    case 'select':
      walk(e.operand, out);
      return;
    case 'list':
      for (const x of e.elements) walk(x, out);
      return;
    case 'map':
      for (const x of e.entries) {
        walk(x.key, out);
        walk(x.value, out);
      }
      return;
    case 'struct':
      for (const f of e.fields) walk(f.value, out);
      return;
    case 'comprehension':
      for (const x of [e.iterRange, e.accuInit, e.loopCondition, e.loopStep, e.result]) walk(x, out);
      return;
    default:
      return;
  }
}

/** The cluster/network library calls of an expression (none when it does not parse: the compiler says why). */
export function findClusterCalls(expression: string): ClusterCall[] {
  const parsed = parse(expression);
  if (!parsed.expr) return [];
  const out: ClusterCall[] = [];
  walk(parsed.expr, out);
  return out;
}
