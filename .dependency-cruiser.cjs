// The layering of the service, checked by `npm run layering` (part of `npm test`).
// Inner layers never import outer ones, so each can be read, tested and replaced on its own:
//   packages/embedded-mongo  (a MongoDB stand-in; a package of its own that knows nothing of the app)
//   db              (stored documents, collections, connection)
//   domain          (the rules)
//   graphql         (the one API implementation)
//   representation  (the public shape of meetings and downloads, for REST answers and webhook bodies)
//   delivery, rest-compat, http, app.ts, cli/, seeds   (doors, workers and entry points)

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'domain-stays-inside',
      comment:
        'The rules must not depend on how they are served or seeded: the doors, the worker and the seeder call domain, never the reverse.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: {
        path: '^(src/(graphql|representation|delivery|http|oauth|mcp)/|src/app\\.ts$|src/cli/|rest-compat/|seeds/)',
      },
    },
    {
      name: 'graphql-knows-no-doors',
      comment:
        'GraphQL is the implementation both doors share; it gets what it needs through its context, not from the REST door, the delivery worker, the HTTP server or the seeder.',
      severity: 'error',
      from: { path: '^src/graphql/' },
      to: { path: '^(src/(delivery|http|representation|oauth|mcp)/|rest-compat/|seeds/)' },
    },
    {
      name: 'oauth-is-a-door',
      comment:
        'The authorization server is a door like the others: it builds on domain and db, and neither the REST door nor the worker knows more of it than where it answers (GraphQL: graphql-knows-no-doors).',
      severity: 'error',
      from: { path: '^(src/(delivery|representation)/|rest-compat/)' },
      // Where it answers is public: the OpenAPI document names its endpoints.
      to: { path: '^src/oauth/', pathNot: '^src/oauth/endpoints\\.ts$' },
    },
    {
      name: 'mcp-is-a-door',
      comment:
        "The MCP door runs the REST door's routes and documents of its own through GraphQL; nothing else builds on it but the composition root. The authorization server knows where it answers (the resource its tokens may be for).",
      severity: 'error',
      from: { path: '^(src/(delivery|representation|oauth|http|db)/|rest-compat/)' },
      to: { path: '^src/mcp/', pathNot: '^src/mcp/endpoints\\.ts$' },
    },
    {
      name: 'mcp-never-reads-the-database',
      comment: 'Like the REST door, the MCP door only runs GraphQL documents.',
      severity: 'error',
      from: { path: '^src/mcp/' },
      // Telling an outage from other failures (a 503, not a 500) reads nothing.
      to: { path: '^src/db/', pathNot: '^src/db/outage\\.ts$' },
    },
    {
      name: 'rest-compat-never-reads-the-database',
      comment:
        'The REST door maps each route onto a GraphQL document, so authentication, visibility and limits are decided in one place; even a type from src/db would invite a second data path.',
      severity: 'error',
      from: { path: '^rest-compat/' },
      to: { path: '^src/db/' },
    },
    {
      name: 'rest-compat-knows-no-worker',
      comment:
        'The REST door and its reference describe deliveries, they do not run them: what both they and the worker state (the retry schedule, the signature) is a domain fact they read from src/domain.',
      severity: 'error',
      from: { path: '^rest-compat/' },
      to: { path: '^src/delivery/' },
    },
    {
      name: 'delivery-knows-no-rest-door',
      comment:
        'The worker sends what the public shape says (src/representation), not what the REST door does: the two doors share that shape and the GraphQL execution, never each other.',
      severity: 'error',
      from: { path: '^src/delivery/' },
      to: { path: '^rest-compat/' },
    },
    {
      name: 'representation-is-shared',
      comment:
        'The public shape (selections, mappers, schemas) is what the REST door and the worker import from each side: it imports only itself and packages, so neither door can leak into the other through it.',
      severity: 'error',
      from: { path: '^src/representation/' },
      to: {
        path: '^(src|rest-compat|seeds|scripts|bench|test|examples|packages)/',
        pathNot: '^src/representation/',
      },
    },
    {
      name: 'embedded-mongo-is-self-contained',
      comment:
        'The embedded engine stands in for a real MongoDB and is a package of its own: it imports only itself and its dependencies.',
      severity: 'error',
      from: { path: '^packages/embedded-mongo/' },
      to: { path: '^(src|rest-compat|seeds|scripts|bench|test|examples)/' },
    },
    {
      name: 'embedded-mongo-by-its-name',
      comment:
        'The gateway uses the engine as any package: by its name (@meetings/embedded-mongo, whose index.ts is all it offers), never a module inside it, so the engine can change inside without the gateway noticing.',
      severity: 'error',
      from: { pathNot: '^packages/embedded-mongo/' },
      to: { path: '^packages/embedded-mongo/', pathNot: '^packages/embedded-mongo/src/index\\.ts$' },
    },
    {
      name: 'db-is-storage-only',
      comment:
        'src/db describes what is stored and how to reach it; the layers above build on it, so it cannot build on them.',
      severity: 'error',
      from: { path: '^src/db/' },
      to: { path: '^(src/(domain|graphql|representation|delivery|http|oauth)/|rest-compat/|seeds/)' },
    },
    {
      name: 'examples-use-the-api-only',
      comment:
        'The examples are what a client writes: they reach the service over HTTP only, so nothing of its code may creep into them.',
      severity: 'error',
      from: { path: '^examples/' },
      to: { path: '^(src|rest-compat|seeds|scripts|bench|test)/' },
    },
    {
      name: 'no-circular',
      comment:
        'Modules that import each other cannot be understood, tested or loaded one at a time (and may see each other half-initialised).',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    // `import type` counts: a type from another layer couples the code just as much.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^bench/results/' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.json'],
    },
  },
};
