// `npm run knip` (and `npm test`, after the lint): files, exports and dependencies nothing uses. What it starts from:
// - found by its plugins, so not repeated here: vitest.config.ts and its projects' test globs (the unit, integration,
//   chaos and e2e tiers' `*.test.ts`, the soak's `*.soak.ts`, the rollout tier's `*.rollout.ts`) and the global
//   setup; the files the package.json scripts run (scripts/*.ts, bench/src/main.ts, libs/sdk/build.ts); each
//   workspace's package.json `exports` (the libraries' index.ts and testing.ts, the services' app.ts, config.ts,
//   and what tools use: store/indexes.ts and testing.ts); files a file starts by path
//   (`new URL('./child.ts', import.meta.url)`: bench's child processes);
// - named below: what runs by a path that no import or script states.
// An export of an entry file is not reported (a library's index.ts is its API). Each exception says why.
import type { KnipConfig } from 'knip';

const config: KnipConfig = {
  workspaces: {
    '.': {
      // The vitest reporter that records each test file's cost: vitest loads its default export by path
      // (`--reporter=./scripts/lib/test-cost.ts`, scripts/test.ts).
      entry: ['scripts/lib/test-cost.ts'],
      ignoreDependencies: [
        // Pins the hoisted copy that libs/coalesce and the gateway import: the image has only the root
        // node_modules, where a nested copy would be missing (deploy/test/image.test.ts).
        'lru-cache',
        // Loaded by Spectral from scripts/openapi/spectral.yaml (`extends`), not imported.
        '@stoplight/spectral-owasp-ruleset',
        // Read as a file (`axe.min.js`, resolved with createRequire) and run inside the browser page by
        // test-e2e/src/dashboard.e2e.test.ts.
        'axe-core',
      ],
    },
    'services/*': {
      // Each service's process: bundled by deploy/scripts/bundle.ts, started by path by scripts/lib's stacks.
      entry: ['src/main.ts'],
    },
    deploy: {
      // The image's one-shot jobs (bundle.ts's SCRIPTS), run with `npx tsx deploy/scripts/<name>.ts` or as
      // Kubernetes Jobs and compose services; bundle.ts builds the image.
      entry: ['scripts/*.ts'],
    },
    'libs/sdk': {
      // build.ts runs its binary by path (node_modules/.bin/dts-bundle-generator), not an import.
      ignoreDependencies: ['dts-bundle-generator'],
    },
  },
};

export default config;
