// `npm run build -w @checkout/sdk`: @checkout/sdk as a package a merchant installs (libs/sdk/dist/), with nothing
// that resolves only inside this workspace. The JavaScript is bundled by esbuild, ESM (index.js) and CommonJS
// (index.cjs), with libs/contracts and libs/errors inside it; the type declarations are bundled by
// dts-bundle-generator into one index.d.ts (and index.d.cts for require), the contracts' types inlined. What stays
// outside is a real dependency from the registry: zod (the contracts' schemas, whose types the declarations name).
// `npm pack libs/sdk/dist` makes the tarball (test-e2e/src/sdk-package.e2e.test.ts installs it in a fresh project).
import { execFile } from 'node:child_process';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build, type BuildOptions } from 'esbuild';

const HERE = dirname(fileURLToPath(import.meta.url));
export const SDK_DIST = join(HERE, 'dist');

interface SourcePackage {
  version: string;
  description: string;
  dependencies: Record<string, string>;
}

/** Builds the package into libs/sdk/dist and returns that directory. */
export async function buildSdk(): Promise<string> {
  const source = JSON.parse(await readFile(join(HERE, 'package.json'), 'utf8')) as SourcePackage;
  // The workspace's own packages are bundled; everything else the SDK needs is a dependency of the package.
  const dependencies = Object.fromEntries(
    Object.entries(source.dependencies).filter(([name]) => !name.startsWith('@checkout/')),
  );
  await rm(SDK_DIST, { recursive: true, force: true });
  await mkdir(SDK_DIST, { recursive: true });

  const common: BuildOptions = {
    entryPoints: [join(HERE, 'src/index.ts')],
    bundle: true,
    platform: 'node',
    target: 'node20.19',
    external: Object.keys(dependencies),
    logLevel: 'warning',
    legalComments: 'none',
  };
  await build({ ...common, format: 'esm', outfile: join(SDK_DIST, 'index.js') });
  await build({ ...common, format: 'cjs', outfile: join(SDK_DIST, 'index.cjs') });

  const bin = join(HERE, '../../node_modules/.bin/dts-bundle-generator');
  await promisify(execFile)(
    bin,
    [
      '--project',
      join(HERE, 'tsconfig.build.json'),
      '--out-file',
      join(SDK_DIST, 'index.d.ts'),
      '--external-inlines',
      '@checkout/contracts',
      '@checkout/errors',
      '--no-banner',
      join(HERE, 'src/index.ts'),
    ],
    { cwd: HERE, maxBuffer: 16 * 1024 * 1024 },
  );
  // The same declarations for require (a .d.ts next to "type": "module" would be read as ESM's).
  await copyFile(join(SDK_DIST, 'index.d.ts'), join(SDK_DIST, 'index.d.cts'));
  await copyFile(join(HERE, 'README.md'), join(SDK_DIST, 'README.md'));

  const manifest = {
    name: '@checkout/sdk',
    version: source.version,
    description: source.description,
    license: 'UNLICENSED',
    type: 'module',
    main: './index.cjs',
    module: './index.js',
    types: './index.d.ts',
    exports: {
      '.': {
        import: { types: './index.d.ts', default: './index.js' },
        require: { types: './index.d.cts', default: './index.cjs' },
      },
    },
    files: ['index.js', 'index.cjs', 'index.d.ts', 'index.d.cts', 'README.md'],
    engines: { node: '>=20.19.0' },
    dependencies,
  };
  await writeFile(join(SDK_DIST, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return SDK_DIST;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dist = await buildSdk();
  console.log(`@checkout/sdk built in ${dist} (npm pack ${dist} makes the tarball)`);
}
