// @ts-check
// `npm run lint` (and `npm test`, after the Prettier check): typescript-eslint's recommended rules with type
// information, the line width, and the layering rules of docs/engineering.md as import restrictions per folder.
// Import cycles are checked by scripts/check-cycles.ts (type-only imports count there; ESLint's cycle rules skip
// them). Every rule turned off or loosened below says why.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** What ships in the image: the product libraries and the services, without the unit tests beside them. */
const SHIPPED = ['libs/*/src/**/*.ts', 'services/*/src/**/*.ts'];
const UNIT_TESTS = ['**/*.test.ts'];

// The layering rules, one group each. `no-restricted-imports` takes one list per file, so a folder's list is the
// sum of the groups that apply to it (restrictedImports below), and a later block replaces an earlier one.
const KAFKAJS = {
  paths: [{ name: 'kafkajs', message: 'Only libs/kafka talks to kafkajs: use @checkout/kafka.' }],
};
const OPENTELEMETRY = {
  patterns: [
    {
      group: ['@opentelemetry/*'],
      message: 'Only libs/telemetry talks to OpenTelemetry: use @checkout/telemetry (docs/operations.md, "Traces").',
    },
  ],
};
const MONGODB = {
  paths: [
    {
      name: 'mongodb',
      message: 'Only libs/mongo imports the driver, types too: use what @checkout/mongo exports (or add it there).',
    },
  ],
};
const TEST_KITS = {
  patterns: [
    {
      regex: '^@checkout/(testing|engines)(/|$)|^@checkout/[^/]+/testing$',
      message:
        'Test infrastructure (testkit/, the libs\u2019 testing entry points) never ships: production code does not import it.',
    },
  ],
};
const DOMAIN = {
  patterns: [
    {
      regex: '(^|/)http(/|$)',
      message: 'domain/ never imports http/ (docs/engineering.md): move the shape to domain/.',
    },
  ],
};
const HTTP = {
  patterns: [
    {
      regex: '(^|/)clients/|(^|/)store/(?!.*\\.document$)',
      message: 'http/ talks to domain/, not to clients/ or store/ (docs/engineering.md): go through a use case.',
    },
    {
      // A presenter in http/ may name the stored shape it presents (docs/engineering.md, presenters).
      regex: '(^|/)store/.*\\.document$',
      allowTypeImports: true,
      message: 'http/ may only name a stored document\u2019s type (import type), not use the store.',
    },
  ],
};

/**
 * The restricted imports of a folder: `groups`, plus the OpenTelemetry ban, which holds everywhere but in libs/telemetry
 * (its blocks use ownImports). A later block replaces an earlier one's list whole, so the ban is in every list rather
 * than in the first block only, where the folders' own blocks below would drop it.
 * @param {...{paths?: object[], patterns?: object[]}} groups
 */
function restrictedImports(...groups) {
  return ownImports(...groups, OPENTELEMETRY);
}

/**
 * The list as given, without the OpenTelemetry ban: for libs/telemetry, the one library that talks to OpenTelemetry.
 * @param {...{paths?: object[], patterns?: object[]}} groups
 */
function ownImports(...groups) {
  return {
    // typescript-eslint's version of the core rule: it can let `import type` through for one pattern.
    '@typescript-eslint/no-restricted-imports': [
      'error',
      { paths: groups.flatMap((g) => g.paths ?? []), patterns: groups.flatMap((g) => g.patterns ?? []) },
    ],
  };
}

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '**/.turbo/**', 'coverage/**', 'testkit/engines/java/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    files: ['**/*.ts'],
    languageOptions: {
      // One program for the whole tree (tsconfig.lint.json): each package's own tsconfig would type-check the
      // libraries once per package, twice the time on 2 cores.
      parserOptions: { project: './tsconfig.lint.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Prettier keeps code within 120 columns; comments are wrapped by hand. Strings, template literals, URLs
      // and regular expressions are left alone: Prettier cannot wrap them.
      'max-len': [
        'error',
        {
          code: 120,
          ignoreStrings: true,
          ignoreTemplateLiterals: true,
          ignoreUrls: true,
          ignoreRegExpLiterals: true,
        },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Off: an async function without await is how a method that implements a promise-returning interface (a
      // store, a client, a test double) is written so that it never throws synchronously; the rule flags exactly
      // those.
      '@typescript-eslint/require-await': 'off',
      ...restrictedImports(KAFKAJS, MONGODB),
    },
  },
  { files: ['eslint.config.js'], ...tseslint.configs.disableTypeChecked },
  {
    // Tests read HTTP answers and messages as parsed JSON (`any`) and assert on them with toEqual/toMatchObject:
    // the assertion is the type check, and a type per answer would restate libs/contracts in every test. So in
    // tests `any` is allowed and its uses are not flagged; production code keeps both rules.
    files: [
      '**/*.test.ts',
      '**/test/**/*.ts',
      'test-e2e/**/*.ts',
      'test-system/soak/**/*.ts',
      'test-system/rollout/**/*.ts',
    ],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  // Each driver behind its own library; the engines probe the servers they start with the drivers themselves
  // (libs/mongo's and libs/kafka's tests start engines, so the engines cannot depend on those libraries).
  { files: ['libs/kafka/**/*.ts'], rules: restrictedImports(MONGODB) },
  { files: ['libs/mongo/**/*.ts'], rules: restrictedImports(KAFKAJS) },
  { files: ['libs/telemetry/**/*.ts'], rules: ownImports(KAFKAJS, MONGODB) },
  { files: ['testkit/engines/**/*.ts'], rules: restrictedImports() },
  // What ships reads no environment (only main.ts hands process.env to the config parser) and no test kit.
  {
    files: SHIPPED,
    ignores: UNIT_TESTS,
    rules: {
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Only main.ts reads the environment: take the setting from the parsed config (docs/engineering.md).',
        },
      ],
      ...restrictedImports(KAFKAJS, MONGODB, TEST_KITS),
    },
  },
  {
    // Small rooms (docs/engineering.md, "Rules a tool enforces", sizes): a product file over 400 lines or a function over 80 holds more
    // than one responsibility. Raw lines, comments and blank lines included, as `wc -l` counts them.
    files: SHIPPED,
    ignores: UNIT_TESTS,
    rules: {
      'max-lines': ['error', { max: 400, skipBlankLines: false, skipComments: false }],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: false, skipComments: false, IIFEs: true }],
    },
  },
  { files: ['services/*/src/main.ts'], rules: { 'no-restricted-properties': 'off' } },
  { files: ['libs/kafka/src/**/*.ts'], ignores: UNIT_TESTS, rules: restrictedImports(MONGODB, TEST_KITS) },
  { files: ['libs/mongo/src/**/*.ts'], ignores: UNIT_TESTS, rules: restrictedImports(KAFKAJS, TEST_KITS) },
  { files: ['libs/telemetry/src/**/*.ts'], ignores: UNIT_TESTS, rules: ownImports(KAFKAJS, MONGODB, TEST_KITS) },
  {
    files: ['services/*/src/domain/**/*.ts'],
    ignores: UNIT_TESTS,
    rules: restrictedImports(KAFKAJS, MONGODB, TEST_KITS, DOMAIN),
  },
  {
    files: ['services/*/src/http/**/*.ts'],
    ignores: UNIT_TESTS,
    rules: restrictedImports(KAFKAJS, MONGODB, TEST_KITS, HTTP),
  },
  {
    // kafkajs declares the functions of an eachMessage/eachBatch payload with method syntax, but hands out
    // closures (its runner builds them as arrow functions), and its documentation destructures them.
    files: ['libs/kafka/src/consumer.ts', 'libs/kafka/src/batch-consumer.ts', 'libs/kafka/src/delayed-consumer.ts'],
    rules: { '@typescript-eslint/unbound-method': 'off' },
  },
);
