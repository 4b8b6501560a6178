/**
 * CEL libraries Kyverno's CEL policies (MutatingPolicy) have beyond Kubernetes' own, as far as they
 * need no cluster or network, and the cel-go extensions Kyverno's base environment adds to the API
 * server's (ext.Bindings, ext.Encoders, ext.Math), and its orValue compatibility macro. Only the Kyverno dialect of
 * the admission environment registers them: a Kubernetes MutatingAdmissionPolicy keeps exactly the API
 * server's environment.
 */
import type { CelLibrary } from '../../library.js';
import { bindingsLibrary } from '../bindings.js';
import { encodersLibrary } from './encoders.js';
import { gzipLibrary } from './gzip.js';
import { hashLibrary } from './hash.js';
import { imageLibrary } from './image.js';
import { jsonLibrary } from './json.js';
import { mathLibrary } from './math.js';
import { mathExtLibrary } from './math-ext.js';
import { orValueCompatLibrary } from './or-value-compat.js';
import { randomLibrary } from './random.js';
import { regexExtLibrary } from './regex-ext.js';
import { timeLibrary } from './time.js';
import { transformLibrary } from './transform.js';
import { userLibrary } from './user.js';
import { x509Library } from './x509.js';
import { yamlLibrary } from './yaml.js';

export const kyvernoLibraries: readonly CelLibrary[] = [
  regexExtLibrary,
  imageLibrary,
  jsonLibrary,
  yamlLibrary,
  timeLibrary,
  mathLibrary,
  hashLibrary,
  transformLibrary,
  x509Library,
  userLibrary,
  gzipLibrary,
  randomLibrary,
  encodersLibrary,
  mathExtLibrary,
  orValueCompatLibrary,
  bindingsLibrary,
];

export { IMAGE_TYPE, ImageReference, parseImageReference } from './image.js';
export { findClusterCalls, referencesIdentifier, CLUSTER_LIBRARIES, type ClusterCall } from './cluster-calls.js';
