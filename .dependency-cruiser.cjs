/**
 * The layering of src/, checked by dependency-cruiser in `npm test` (test/layers/layers.test.ts, through
 * scripts/layers.mjs; `npm run layers` prints the report). Lowest layer first: a folder may import its
 * own layer and the layers below, never one above; another folder is entered through its `index.ts`;
 * no import cycle between modules (through value imports); core folders import no platform module.
 */

/** Folders of src/, lowest first. A folder not listed is a violation (every folder has its place). */
const LAYERS = [
  ['json', 'guard', 'observe', 'settings'],
  ['k8s', 'go'],
  ['cel', 'schema', 'jsonpatch', 'admission'],
  ['map', 'kyverno', 'mpol'],
  ['policyset'],
  ['engine'],
  ['sources', 'clusters', 'webhook-config'],
  ['server'],
  ['runtime'],
  ['adapters', 'cli'],
];

/** Faces besides a folder's own index.ts: the Node-only sources, kept apart so core bundles never load them. */
const EXTRA_FACES = ['sources/node/index'];

/** Folders that import no platform module (CONTRIBUTING: no `node:*`, no AWS SDK, no Hono). */
const CORE = ['json', 'guard', 'observe', 'settings', 'k8s', 'go', 'cel', 'schema', 'jsonpatch', 'admission', 'map', 'mpol', 'kyverno', 'policyset', 'engine', 'webhook-config'];

const either = (names) => `(${names.join('|')})`;
const ALL = LAYERS.flat();

const layerRules = LAYERS.slice(0, -1).map((tier, i) => ({
  name: `layer-${tier.join('-')}`,
  severity: 'error',
  comment: `src/{${tier.join(',')}} may not import a layer above it (${LAYERS.slice(i + 1).flat().join(', ')})`,
  from: { path: `^src/${either(tier)}/` },
  to: { path: `^src/${either(LAYERS.slice(i + 1).flat())}/` },
}));

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'through-index',
      severity: 'error',
      comment: 'another folder is entered through its index.ts (CONTRIBUTING: a folder exposes its public surface there)',
      from: { path: '^src/([^/]+)/' },
      to: { path: '^src/', pathNot: ['^src/$1/', `^src/[^/]+/index\\.[cm]?[jt]s$`, ...EXTRA_FACES.map((f) => `^src/${f}\\.[cm]?[jt]s$`)] },
    },
    {
      name: 'placed-folder',
      severity: 'error',
      comment: `every folder of src/ has a layer in .dependency-cruiser.cjs (known: ${ALL.join(', ')})`,
      from: { path: `^src/(?!${either(ALL)}/)[^/]+/` },
      to: {},
    },
    {
      name: 'no-cycle',
      severity: 'error',
      comment: 'no import cycle between modules (type-only imports, erased at run time, do not count)',
      from: { path: '^src/' },
      to: { circular: true, dependencyTypesNot: ['dynamic-import'], viaOnly: { dependencyTypesNot: ['dynamic-import'] } },
    },
    {
      name: 'core-is-platform-free',
      severity: 'error',
      comment: 'core folders import no platform module: no node:*, no AWS SDK, no Hono',
      from: { path: `^src/${either(CORE)}/` },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'core-is-platform-free-npm',
      severity: 'error',
      comment: 'core folders import no platform module: no node:*, no AWS SDK, no Hono',
      from: { path: `^src/${either(CORE)}/` },
      to: { path: 'node_modules/(@aws-sdk|hono|@hono)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    moduleSystems: ['es6'],
  },
  /** For scripts/layers.mjs and its tests. */
  LAYERS,
};
