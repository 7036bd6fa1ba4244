// Real bundles of one small TypeScript program, built with the bundlers from npm (devDependencies), and
// run under `node --cpu-prof`: fixtures for the source-map tests (integration and e2e).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from './paths';

// Bundlers cannot be bundled into the tests: they are loaded from the repository at run time.
const load = createRequire(join(repoRoot, 'package.json'));

/** Types and comments first, so every bundler moves the functions to other lines. */
export const HOT_TS = `// The hot path of this little program.
export interface Options {
  ms: number;
}

export function crunchNumbers(opts: Options): number {
  const end = Date.now() + opts.ms;
  let acc = 7;
  while (Date.now() < end) {
    for (let i = 0; i < 100000; i++) {
      acc = (acc * 1103515245 + 12345) % 2147483647;
    }
  }
  return acc;
}

export const spinArrow = (opts: Options): number => crunchNumbers(opts) + 1;
`;
export const CRUNCH_LINE = 6;
export const HOT_LINE = 11;
export const ARROW_LINE = 17;
/** `warmUp` is a named function expression only called back: minifiers drop its name, V8 then calls it anonymous. */
const MAIN_TS = `import { crunchNumbers, spinArrow } from './hot';
const a = crunchNumbers({ ms: 600 });
const b = spinArrow({ ms: 300 });
let c = 0;
[150].forEach(function warmUp(ms) {
  c += crunchNumbers({ ms });
});
console.log(a > 0 && b > 0 && c > 0 ? 'ok' : 'none');
`;
export const WARMUP_LINE = 5;

/** A project folder with `src/hot.ts`, `src/main.ts`, a package name (webpack's namespace) and a tsconfig. */
export function writeProject(dir: string): void {
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'src', 'hot.ts'), HOT_TS);
  writeFileSync(join(dir, 'src', 'main.ts'), MAIN_TS);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'flame-fixture', version: '1.0.0', private: true }));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { target: 'es2020', module: 'commonjs', moduleResolution: 'node', sourceMap: true, strict: true },
      include: ['src'],
    }),
  );
  // ts-loader resolves `typescript` from the project it builds.
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  symlinkSync(join(repoRoot, 'node_modules', 'typescript'), join(dir, 'node_modules', 'typescript'), 'dir');
}

/** esbuild --bundle --minify --sourcemap: one minified line, names in the map's `names`. */
export async function buildEsbuild(dir: string): Promise<string> {
  const esbuild = load('esbuild') as typeof import('esbuild');
  const out = join(dir, 'dist-esbuild', 'app.js');
  await esbuild.build({
    entryPoints: [join(dir, 'src', 'main.ts')],
    bundle: true,
    minify: true,
    platform: 'node',
    sourcemap: true,
    outfile: out,
    logLevel: 'silent',
  });
  return out;
}

/** webpack (production: minified by its terser) with ts-loader and `devtool: source-map`: sources like `webpack://flame-fixture/./src/hot.ts`. */
export async function buildWebpack(dir: string): Promise<string> {
  const webpack = load('webpack') as (
    cfg: object,
    cb: (err: Error | null, stats?: { hasErrors(): boolean; toString(o?: object): string }) => void,
  ) => void;
  const outDir = join(dir, 'dist-webpack');
  await new Promise<void>((res, rej) =>
    webpack(
      {
        mode: 'production',
        target: 'node',
        context: dir,
        entry: './src/main.ts',
        devtool: 'source-map',
        output: { path: outDir, filename: 'app.js' },
        resolve: { extensions: ['.ts', '.js'] },
        resolveLoader: { modules: [join(repoRoot, 'node_modules')] },
        module: {
          rules: [
            {
              test: /\.ts$/,
              loader: 'ts-loader',
              options: { transpileOnly: true, compilerOptions: { module: 'esnext', target: 'es2020' } },
            },
          ],
        },
      },
      (err, stats) => (err ? rej(err) : stats?.hasErrors() ? rej(new Error(stats.toString({ colors: false }))) : res()),
    ),
  );
  return join(outDir, 'app.js');
}

/**
 * Rollup with @rollup/plugin-terser; TypeScript turned into JavaScript (with its map, which Rollup chains) by the compiler's own API.
 * Rollup's WebAssembly build (@rollup/wasm-node, the same bundler): the native one needs a package per platform,
 * and the registry here lacks some of them, so `npm ci` refused a lock file naming them.
 */
export async function buildRollup(dir: string): Promise<string> {
  const { rollup } = load('@rollup/wasm-node') as typeof import('@rollup/wasm-node');
  const terser = load('@rollup/plugin-terser') as () => import('@rollup/wasm-node').Plugin;
  const ts = load('typescript') as typeof import('typescript');
  const tsPlugin: import('@rollup/wasm-node').Plugin = {
    name: 'typescript-transpile',
    resolveId(source, importer) {
      return importer && source.startsWith('.') && !/\.[jt]s$/.test(source) ? resolve(dirname(importer), source + '.ts') : null;
    },
    transform(code, id) {
      if (!id.endsWith('.ts')) return null;
      const out = ts.transpileModule(code, {
        fileName: id,
        compilerOptions: { sourceMap: true, target: ts.ScriptTarget.ES2020, module: ts.ModuleKind.ESNext },
      });
      return { code: out.outputText.replace(/\/\/# sourceMappingURL=.*$/m, ''), map: out.sourceMapText! };
    },
  };
  const bundle = await rollup({ input: join(dir, 'src', 'main.ts'), plugins: [tsPlugin, terser()] });
  const out = join(dir, 'dist-rollup', 'app.js');
  await bundle.write({ file: out, format: 'cjs', sourcemap: true });
  await bundle.close();
  return out;
}

/** tsc with `outDir` and a `sourceRoot` (a file:// URL of the source folder): maps name `hot.ts` under that root. */
export function buildTsc(dir: string): string {
  const outDir = join(dir, 'dist-tsc');
  const r = spawnSync(
    process.execPath,
    [
      join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc'),
      '-p',
      join(dir, 'tsconfig.json'),
      '--outDir',
      outDir,
      '--sourceRoot',
      pathToFileURL(join(dir, 'src')).href + '/',
    ],
    { encoding: 'utf8', timeout: 120_000 },
  );
  if (r.status !== 0) throw new Error(`tsc failed: ${r.stdout}${r.stderr}`);
  return join(outDir, 'main.js');
}

/** Runs a script under `node --cpu-prof` and returns the .cpuprofile it wrote. */
export function cpuProfile(script: string, profDir: string): string {
  const run = spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', profDir, script], { encoding: 'utf8', timeout: 60_000 });
  if (run.status !== 0 || !run.stdout.includes('ok')) throw new Error(`${script} failed: ${run.stderr}`);
  return join(profDir, readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'))!);
}
