/**
 * The function libraries composed into the Kubernetes environment: the Kubernetes libraries and the
 * cel-go extensions written in src/cel/lib.
 */
export { libraries } from '../lib/index.js';
