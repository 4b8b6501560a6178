/**
 * JMESPath for Kyverno: compile and evaluate times of typical Kyverno expressions against a 4 KB Pod
 * review, cached (compile() hits the LRU) and uncached (parse + closure compile every time), and the
 * same expressions on @jmespath-community/jmespath for reference (it runs the community grammar, not
 * Kyverno's, and has no unresolved-key errors; the Kyverno functions are absent there, so those rows
 * show "n/a").
 */
import { compile as communityCompile, TreeInterpreter } from '@jmespath-community/jmespath';
import { pod4k } from '../fixtures.js';
import { formatNs, measure, table } from '../lib.js';
import { compile, compileFresh } from '../../src/kyverno/jmespath/index.js';

const EXPRESSIONS: [string, string][] = [
  ['field || default', "request.object.metadata.labels.app || ''"],
  ['length', 'length(request.object.spec.containers)'],
  ['projection', 'request.object.spec.containers[*].image'],
  ['filter', "request.object.spec.containers[?name == 'web'].image | [0]"],
  ['to_string', 'to_string(request.object.spec.containers[0].resources)'],
  ['regex_replace_all', "regex_replace_all('^registry.example.com/(.*)$', request.object.spec.containers[0].image, 'mirror.local/$1')"],
  ['items', "items(request.object.metadata.labels, 'key', 'value')"],
  ['contains keys', "contains(keys(request.object.metadata.labels), 'app')"],
  ['add quantities', 'add(request.object.spec.containers[0].resources.limits.memory, request.object.spec.containers[1].resources.limits.memory)'],
];

const KYVERNO_ONLY = new Set(['regex_replace_all', 'items', 'add quantities']);

export async function run(): Promise<void> {
  const review = pod4k();
  const rows: Record<string, string>[] = [];
  for (const [label, expr] of EXPRESSIONS) {
    const cached = compile(expr);
    const evaluate = measure(() => cached.search(review));
    const compileCached = measure(() => compile(expr));
    const compileUncached = measure(() => compileFresh(expr));
    const endToEnd = measure(() => compileFresh(expr).search(review));
    let community = 'n/a';
    let communityCompileTime = 'n/a';
    if (!KYVERNO_ONLY.has(label)) {
      const ast = communityCompile(expr);
      community = formatNs(measure(() => TreeInterpreter.search(ast, review)).median);
      communityCompileTime = formatNs(measure(() => communityCompile(expr)).median);
    }
    rows.push({
      expression: label,
      'evaluate (compiled)': formatNs(evaluate.median),
      'compile (cache hit)': formatNs(compileCached.median),
      'compile (uncached)': formatNs(compileUncached.median),
      'compile+evaluate uncached': formatNs(endToEnd.median),
      'community evaluate': community,
      'community compile': communityCompileTime,
    });
  }
  table('jmespath: typical Kyverno expressions on a 4 KB Pod review (median)', rows);
}
