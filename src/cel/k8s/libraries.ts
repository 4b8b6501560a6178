/**
 * The function libraries composed into the Kubernetes environment: the Kubernetes libraries and the
 * cel-go extensions written in src/cel/lib.
 */
export { libraries, MUTATION_ONLY_LIBRARIES } from '../lib/index.js';
