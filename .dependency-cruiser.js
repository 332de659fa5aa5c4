/**
 * The house's import rules, checked by `npm run lint` (and before `npm test`): no cycles between
 * files (in src/ and test/), imports point down the layers below, never up, and a feature's store
 * stays in its feature but for the reaches listed. docs/architecture.md explains them.
 */
/** The folders of each layer but features; any other folder under src/ is a feature. */
const NAMED_LAYERS = {
  platform: ['platform'],
  common: ['common'],
  auth: ['auth'],
  foundations: ['accounts', 'audit', 'usage', 'rate-limit', 'idempotency', 'reference', 'storage'],
  events: ['events'],
  listings: ['listings'],
  composition: ['admin', 'health', 'queue-dashboard', 'openapi'],
};
const folders = (names) => `^src/(${names.join('|')})/`;
const layer = (name) => ({ name, path: folders(NAMED_LAYERS[name]) });

const LAYERS = [
  layer('platform'),
  layer('common'),
  layer('auth'),
  layer('foundations'),
  layer('events'),
  layer('listings'),
  // A new folder is a feature unless a layer above names it: it needs no line here.
  { name: 'features', path: `^src/(?!(${Object.values(NAMED_LAYERS).flat().join('|')})/)[^/]+/` },
  { name: 'composition', path: `${folders(NAMED_LAYERS.composition)}|^src/[^/]+\\.ts$` },
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

const STORE = '\\.store\\.ts$';

/**
 * The few places that use another feature's store, each with its reason. A store is otherwise
 * imported only within its own feature folder: a file directly in a feature's folder may use any
 * store of that feature, a file in a subfolder its own subfolder's and the feature's top-level ones.
 */
const STORE_REACHES = [
  {
    from: 'src/images/images.service.ts',
    to: 'src/listings/gallery/gallery.store.ts',
    why: "an image added or removed is a gallery edit: the listing's lock and dense positions",
  },
  {
    from: 'src/imports/import-runner.ts',
    to: 'src/listings/listings.store.ts',
    why: "an import chunk reads and writes its listings in the chunk's own transaction",
  },
  {
    from: 'src/test-helpers/test-helpers.service.ts',
    to: 'src/listings/listings.store.ts',
    why: "the sandbox's publish and expire are the store's test-mode transitions",
  },
  {
    from: 'src/webhooks/dispatch/',
    to: 'src/webhooks/deliveries/webhook-delivery.store.ts',
    why: 'the dispatch pipeline keeps the delivery records it works through',
  },
  {
    from: 'src/webhooks/dispatch/',
    to: 'src/webhooks/endpoints/webhook-endpoint.store.ts',
    why: 'fan-out and attempts read targets and record the failure streak',
  },
];

const exactly = (path) => `^${path.replace(/[.]/g, '\\.')}${path.endsWith('/') ? '' : '$'}`;

/** The stores a file may import without a listed reach (see STORE_REACHES). */
function ownStores(path) {
  const [, feature, sub] = path.split('/');
  const inSubfolder = path.split('/').length > 3;
  return inSubfolder
    ? [`^src/${feature}/[^/]+${STORE}`, `^src/${feature}/${sub}/`]
    : [`^src/${feature}/`];
}

function storesStayHome() {
  const comment = "Another feature's store: list the reach in STORE_REACHES with its reason.";
  const reaching = [...new Set(STORE_REACHES.map((r) => r.from))];
  return [
    {
      name: 'store-stays-home',
      comment,
      severity: 'error',
      from: { path: '^src/([^/]+)/[^/]+$', pathNot: [SPECS, ...reaching.map(exactly)] },
      to: { path: STORE, pathNot: '^src/$1/' },
    },
    {
      name: 'store-stays-home',
      comment,
      severity: 'error',
      from: { path: '^src/([^/]+)/([^/]+)/', pathNot: [SPECS, ...reaching.map(exactly)] },
      to: { path: STORE, pathNot: [`^src/$1/[^/]+${STORE}`, '^src/$1/$2/'] },
    },
    ...reaching.map((from) => ({
      name: 'store-stays-home',
      comment,
      severity: 'error',
      from: { path: exactly(from), pathNot: SPECS },
      to: {
        path: STORE,
        pathNot: [
          ...ownStores(from),
          ...STORE_REACHES.filter((r) => r.from === from).map((r) => exactly(r.to)),
        ],
      },
    })),
  ];
}

function pointDown(layers, prefix) {
  return layers.slice(0, -1).map((layer, i) => ({
    name: `${prefix}${layer.name}-points-down`,
    comment: `${layer.name} may import only what lies below it: ${
      layers
        .slice(0, i)
        .map((l) => l.name)
        .join(', ') || 'nothing of the service'
    }`,
    severity: 'error',
    from: { path: layer.path, pathNot: SPECS },
    to: { path: layers.slice(i + 1).map((l) => l.path) },
  }));
}

/**
 * A webhooks subfolder outside every layer would escape the rules above: it may import nothing of
 * the service and nothing may import it, so it is placed in a layer before it is used.
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
    ...storesStayHome(),
    ...pointDown(LAYERS, 'layer-'),
    ...pointDown(WEBHOOK_LAYERS, 'webhooks-'),
    ...everyFolderInALayer(WEBHOOK_LAYERS, '^src/webhooks/[^/]+/', 'webhooks-folder-in-a-layer'),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
