/**
 * The house's import rules, checked by `npm run lint` (and before `npm test`): no cycles between
 * files, and imports point down the layers below, never up. docs/architecture.md explains them.
 */
const LAYERS = [
  { name: 'platform', path: '^src/platform/' },
  { name: 'common', path: '^src/common/' },
  { name: 'auth', path: '^src/auth/' },
  {
    name: 'foundations',
    path: '^src/(accounts|usage|rate-limit|idempotency|reference|storage)/',
  },
  { name: 'events', path: '^src/events/' },
  { name: 'listings', path: '^src/listings/' },
  { name: 'features', path: '^src/(images|bulk|webhooks|imports|test-helpers)/' },
  {
    name: 'composition',
    path: '^src/(admin|health|queue-dashboard|scheduler|openapi)/|^src/[^/]+\\.ts$',
  },
];

/** Inside webhooks: the HTTP client at the bottom, then endpoints, deliveries, dispatch, the modules. */
const WEBHOOK_LAYERS = [
  { name: 'transport', path: '^src/webhooks/transport/' },
  { name: 'endpoints', path: '^src/webhooks/endpoints/' },
  { name: 'deliveries', path: '^src/webhooks/deliveries/' },
  { name: 'dispatch', path: '^src/webhooks/dispatch/' },
  { name: 'modules', path: '^src/webhooks/[^/]+\\.ts$' },
];

/** Specs may reach across layers to build their inputs (a DTO to validate, a fixture). */
const SPECS = '\\.spec\\.ts$';

function pointDown(layers, prefix) {
  return layers.slice(0, -1).map((layer, i) => ({
    name: `${prefix}${layer.name}-points-down`,
    comment: `${layer.name} may import only what lies below it: ${layers
      .slice(0, i)
      .map((l) => l.name)
      .join(', ') || 'nothing of the service'}`,
    severity: 'error',
    from: { path: layer.path, pathNot: SPECS },
    to: { path: layers.slice(i + 1).map((l) => l.path) },
  }));
}

/**
 * A folder outside every layer would escape the rules above: it may import nothing of the service
 * and nothing may import it, so a new folder is placed in a layer before it is used.
 */
function everyFolderInALayer(layers, folders, name) {
  const outside = { path: folders, pathNot: layers.map((l) => l.path) };
  return [
    {
      name,
      comment: 'Add the folder to a layer.',
      severity: 'error',
      from: outside,
      to: { path: '^src/' },
    },
    { name, comment: 'Add the folder to a layer.', severity: 'error', from: {}, to: outside },
  ];
}

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A cycle of imports, type-only ones included, ties its files into one unit.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'platform-stays-platform',
      comment: 'The platform layer knows no feature: features register with it.',
      severity: 'error',
      from: { path: '^src/platform/', pathNot: SPECS },
      to: { path: '^src/', pathNot: '^src/platform/' },
    },
    {
      name: 'migrations-frozen',
      comment: 'A migration is history: its SQL is inlined, it imports no live code.',
      severity: 'error',
      from: { path: '^src/platform/database/migrations/' },
      to: { path: '^src/', pathNot: '^src/platform/database/migrations/' },
    },
    ...pointDown(LAYERS, 'layer-'),
    ...pointDown(WEBHOOK_LAYERS, 'webhooks-'),
    ...everyFolderInALayer(LAYERS, '^src/[^/]+/', 'folder-in-a-layer'),
    ...everyFolderInALayer(WEBHOOK_LAYERS, '^src/webhooks/[^/]+/', 'webhooks-folder-in-a-layer'),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
