/**
 * The layers of src/ and the one rule between them: an import points down, never up, and never
 * round in a cycle. Checked by `npm run lint` (dependency-cruiser). docs/architecture.md explains
 * the layers; this table is the source of truth.
 *
 *   entry       main.ts, runtime.ts, app.ts, deps.ts, monitoring-app.ts, starting-app.ts,
 *               sample-data.ts, cli/, embedded/  wiring and processes: may import anything below
 *   services    services/<service>/             the spec's services (routes + use cases); services/intake/
 *                                               holds the rules common to publish and inbound distribution
 *   http        http/                           Koa middleware: context, gate, error exits, logging
 *   storage     storage/                        the only code that talks to CouchDB (nano)
 *   protocol    protocol/                       XML and HTML from plain data (no storage types either)
 *   validation  validation/                     JSON schemas of documents and requests (ajv)
 *   config      config/                         settings and node configuration, validated (by
 *                                               domain's rules, e.g. the filter's patterns)
 *   domain      domain/                         the node's rules, on plain data (no config/:
 *                                               the configuration's types are domain's own)
 *   leaves      errors/, net/, monitoring/      no imports from any layer above
 */
const LAYERS = [
  ['entry', '^src/(main|runtime|app|deps|monitoring-app|starting-app|sample-data)\\.ts$|^src/(cli|embedded)/'],
  ['services', '^src/services/'],
  ['http', '^src/http/'],
  ['storage', '^src/storage/'],
  ['protocol', '^src/protocol/'],
  ['validation', '^src/validation/'],
  ['config', '^src/config/'],
  ['domain', '^src/domain/'],
  ['leaves', '^src/(errors|net|monitoring)/'],
];

/** A layer may import itself and every layer listed after it. */
function forbiddenUpward() {
  return LAYERS.map(([name, path], index) => ({
    name: `no-upward-from-${name}`,
    comment: `${name} may import only the layers below it (see the table at the top of this file)`,
    severity: 'error',
    from: { path },
    to: { path: LAYERS.slice(0, index).map(([, above]) => `(${above})`).join('|') || '^$' },
  }));
}

module.exports = {
  forbidden: [
    ...forbiddenUpward(),
    {
      name: 'every-module-in-a-layer',
      comment: 'a module outside the table above has no place in the architecture: add its folder to a layer',
      severity: 'error',
      from: { path: '^src/', pathNot: LAYERS.map(([, path]) => `(${path})`).join('|') },
      to: {},
    },
    {
      name: 'no-cycles',
      comment: 'modules must not import each other round in a circle',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'nano-only-in-storage',
      comment: 'storage/ is the only place that talks to CouchDB',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/storage/' },
      to: { path: 'node_modules/nano/' },
    },
    {
      name: 'no-koa-in-use-cases',
      comment: 'a *.service.ts is the use case: no Koa, no HTTP (routes translate)',
      severity: 'error',
      from: { path: '^src/services/.+\\.service\\.ts$' },
      to: { path: 'node_modules/(koa|@koa)/' },
    },
    {
      name: 'http-only-in-routes',
      comment: 'in a service folder only *.routes.ts and *.http.ts handle HTTP (Koa, src/http/); every other module is the use case or its rules',
      severity: 'error',
      from: { path: '^src/services/', pathNot: '\\.(routes|http)\\.ts$' },
      to: { path: '^(node_modules/(koa|@koa)/|src/http/)' },
    },
    {
      name: 'no-http-reachable-from-use-cases',
      comment: 'nor through another module: a use case that imports from http/ depends on Koa by way of it (SWORD took its 403 from the gate)',
      severity: 'error',
      from: { path: '^src/services/.+\\.service\\.ts$' },
      to: { path: '^src/http/', reachable: true },
    },
    {
      name: 'distribution-not-through-publish',
      comment: 'inbound distribution shares the rules common to publish and inbound distribution through services/intake/, never through Basic Publish itself, not even by way of another module',
      severity: 'error',
      from: { path: '^src/services/distribute/' },
      to: { path: '^src/services/publish/', reachable: true },
    },
    {
      name: 'intake-serves-both',
      comment: 'services/intake/ is shared by publish and inbound distribution, so it imports neither',
      severity: 'error',
      from: { path: '^src/services/intake/' },
      to: { path: '^src/services/(publish|distribute)/' },
    },
    {
      name: 'no-db-or-koa-in-protocol',
      comment: 'protocol/ builds documents from plain data: no database, no Koa',
      severity: 'error',
      from: { path: '^src/protocol/' },
      to: { path: 'node_modules/(nano|koa|@koa)/' },
    },
    {
      name: 'no-test-code-in-src',
      comment: 'the shipped node never reads the tests (a published package has none)',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^test/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js'] },
  },
};
