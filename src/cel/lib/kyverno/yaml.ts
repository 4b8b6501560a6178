import { activeGuard, checkBuiltSize } from '../../engine/bounds.js';
import { parseYaml11FirstDocument, YamlError } from '../../../go/index.js';
import type { CelLibrary, LibraryRegistrar } from '../../library.js';
import { traversal } from '../cost.js';
import { celError } from '../errors.js';
import { documentToCel } from './documents.js';

/**
 * Kyverno's yaml library (kyverno/sdk `extensions/cel/libs/yaml`): `yaml.parse(string) -> dyn`, through
 * sigs.k8s.io/yaml (YAML 1.1 to JSON, then Go's decoding: numbers are doubles). Of a stream of documents,
 * the first is read and the rest ignored, as go-yaml v2's Unmarshal does.
 */

function parse(text: string): unknown {
  checkBuiltSize(text.length, 'the argument of yaml.parse');
  try {
    // The review's guard can stop a long parse (a few MB of review text take seconds).
    return documentToCel(parseYaml11FirstDocument(text, activeGuard()));
  } catch (e) {
    if (e instanceof YamlError) throw celError(e.message);
    throw e;
  }
}

export const yamlLibrary: CelLibrary = {
  name: 'kyverno.yaml',
  register(r: LibraryRegistrar) {
    r.registerFunction('yaml.parse(string): dyn', parse);
  },
  callCost(fn, args) {
    return fn === 'yaml.parse' ? 1 + traversal(args[0]) : undefined;
  },
};
