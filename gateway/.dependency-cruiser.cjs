/**
 * The gateway's layers, checked by `npm run lint`: imports point one way, from the edges (http, console, cli) to
 * the engine and jobs, then the domain, then the store. Providers implement the interfaces the engine owns
 * (engine/ports) and are wired where the gateway starts (server.ts). No cycle anywhere.
 */
const layer = (name, mayNotImport, comment) => ({
  name,
  comment,
  severity: 'error',
  from: { path: `^src/${name}/` },
  to: { path: `^src/(${mayNotImport.join('|')})(/|\\.ts$)` },
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A cycle ties modules into one knot: break it by moving the shared piece down.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    layer(
      'store',
      [
        'domain',
        'engine',
        'jobs',
        'providers',
        'outbound',
        'bot',
        'http',
        'console',
        'cli',
        'bench',
        'server',
        'context',
      ],
      'The store knows documents, not the domain.',
    ),
    layer(
      'domain',
      ['engine', 'jobs', 'providers', 'http', 'console', 'cli', 'bench', 'server'],
      'Data and its rules; the engine acts on them.',
    ),
    layer(
      'engine',
      ['jobs', 'providers', 'http', 'console', 'cli', 'bench', 'server'],
      'The engine reaches providers through its ports only.',
    ),
    layer(
      'jobs',
      ['providers', 'http', 'console', 'cli', 'bench', 'server'],
      "Jobs run the engine; providers come through the engine's ports.",
    ),
    {
      name: 'providers',
      comment: "Providers implement the engine's ports and use the domain; nothing above them.",
      severity: 'error',
      from: { path: '^src/providers/' },
      to: { path: '^src/(engine/(?!ports/)|jobs|http|console|cli|bench|server)' },
    },
    layer(
      'contract',
      [
        'domain',
        'engine',
        'jobs',
        'providers',
        'outbound',
        'bot',
        'http',
        'console',
        'cli',
        'bench',
        'server',
        'context',
        'store',
      ],
      "The answers' schemas: what the API promises, built on nothing of the gateway.",
    ),
    layer(
      'outbound',
      ['domain', 'engine', 'jobs', 'providers', 'http', 'console', 'cli', 'store', 'server'],
      'Outbound HTTP rules sit below the domain.',
    ),
    layer(
      'bot',
      ['domain', 'engine', 'jobs', 'providers', 'http', 'console', 'cli', 'store', 'server', 'context', 'outbound'],
      'The offline FAQ bot is a library of its own.',
    ),
    layer(
      'http',
      ['providers', 'console', 'cli', 'bench', 'server'],
      "The API does not know the console, nor a provider: it reaches channels through the engine's ports; the server mounts both.",
    ),
    layer('console', ['cli', 'bench', 'server', 'jobs'], "The console's server side is an edge beside the API."),
  ],
  options: {
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/console/client/' },
  },
};
