// The programs of the real-app corpus (test/corpus): what each runs and what a profile of it must name.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './paths';
import type { CorpusProgram } from './corpusRun';

const autocannon = join(repoRoot, 'node_modules', 'autocannon', 'autocannon.js');

/** The cheap set `npm test` runs (test/corpus): one compiler, one formatter, a parallel test runner, a server. */
export const SMALL_CORPUS: CorpusProgram[] = [
  {
    name: 'tsc',
    app: 'tsc-project',
    command: () => ['node_modules/.bin/tsc', '-p', '.'],
    // Each ≥ 2 % of the total in every mode here. resolveNameHelper was 0.4–0.6 % (4–7 of ~1,100 prof ticks): a CI
    // run under load sampled it not once.
    hot: ['checkSourceElementWorker', 'bindWorker', 'scan', 'checkExpression'],
    heapHot: ['createSourceFile', 'checkSourceElementWorker'],
  },
  {
    name: 'prettier',
    app: 'prettier-format',
    // To stdout, not --write: every mode formats the same unformatted files.
    command: () => ['node_modules/.bin/prettier', 'input'],
    hot: ['printDocToString', 'fits', 'propagateBreaks'],
    heapHot: ['printDocToString'],
    // A real code base to format, taken from the installed packages (not kept in git): fastify's lib, ~250 kB.
    prepare: (work) => {
      const lib = join(work, 'node_modules', 'fastify', 'lib');
      mkdirSync(join(work, 'input'));
      for (const f of readdirSync(lib).filter((n) => n.endsWith('.js'))) cpSync(join(lib, f), join(work, 'input', f));
    },
  },
  {
    name: 'mocha --parallel',
    app: 'mocha-suite',
    command: () => [
      'node_modules/.bin/mocha',
      '--parallel',
      '--jobs',
      '2',
      '--timeout',
      '60000',
      'fib.spec.js',
      'sort.spec.js',
      'work.spec.js',
    ],
    hot: ['fib', 'sortStrings', 'workOfFile'],
  },
  {
    name: 'fastify (npm start)',
    app: 'fastify-server',
    command: () => ['npm', 'start'],
    load: `node ${autocannon} -d 3 -c 8 http://127.0.0.1:$NODE_FLAME_PORT/`,
    hot: ['makeRows', 'renderTable'],
    noisyShares: 'two cpu-prof runs of this server under autocannon agree on 0 of 5 hot functions within the tolerance',
  },
];

/** Modules for webpack to bundle, made in the working folder: an entry importing `n` modules of a few functions. */
function writeModules(work: string, n: number): void {
  const src = join(work, 'src');
  mkdirSync(src, { recursive: true });
  const imports: string[] = [];
  for (let i = 0; i < n; i++) {
    const body = [
      `export function parse${i}(text) {`,
      `  return text.split(',').map((s, j) => ({ key: s.trim(), index: j + ${i} }));`,
      `}`,
      `export class Table${i} {`,
      `  constructor(rows) { this.rows = rows.filter((r) => r.index % ${(i % 7) + 2} !== 0); }`,
      `  render() { return this.rows.map((r) => \`<td>\${r.key}</td>\`).join(''); }`,
      `}`,
      `export const sum${i} = (xs) => xs.reduce((a, b) => a + b, ${i});`,
    ];
    writeFileSync(join(src, `m${i}.js`), body.join('\n') + '\n');
    imports.push(`import { parse${i}, Table${i}, sum${i} } from './m${i}.js';`);
    imports.push(`console.log(new Table${i}(parse${i}('a,b,c')).render(), sum${i}([1, 2]));`);
  }
  writeFileSync(join(src, 'index.js'), imports.join('\n') + '\n');
}

// Not the test files by name: `profile -- <path>/jest … x.test.js` takes jest for a node binary (classifyCommand's
// loose rule: an executable with a slash followed by a .js word), and runs it with --cpu-prof as its arguments.
const TEST_FILES: string[] = [];
const SUITE_HOT = ['fib', 'sortStrings', 'workOfFile'];

/**
 * The full set `npm run bench corpus` adds (bench/corpus): test runners with workers, a watcher, a bundler, a linter, a
 * compiler made by dart2js, a Markdown renderer.
 */
export const FULL_CORPUS: CorpusProgram[] = [
  { name: 'jest', app: 'jest-suite', command: () => ['node_modules/.bin/jest', '--maxWorkers=2', ...TEST_FILES], hot: SUITE_HOT },
  {
    name: 'jest --workerThreads',
    app: 'jest-suite',
    command: () => ['node_modules/.bin/jest', '--maxWorkers=2', '--workerThreads', ...TEST_FILES],
    hot: SUITE_HOT,
  },
  { name: 'vitest', app: 'vitest-suite', command: () => ['node_modules/.bin/vitest', 'run'], hot: SUITE_HOT },
  // Test files in worker threads started one after another (tinypool), each through vite-node's vm.
  {
    name: 'vitest --pool=threads',
    app: 'vitest-suite',
    command: () => ['node_modules/.bin/vitest', 'run', '--pool=threads'],
    hot: SUITE_HOT,
  },
  {
    name: 'nodemon + edit',
    app: 'nodemon-express',
    // A fixed port, so the restarted server answers where the first one did.
    // No `server.js` word (package.json's main names it): classifyCommand would take nodemon for a node binary.
    command: () => [`PORT=${20000 + (process.pid % 20000)}`, 'node_modules/.bin/nodemon', '--exitcrash'],
    // Load, then an edit (nodemon restarts the server with SIGUSR2), then load on the new incarnation.
    load:
      `node ${autocannon} -d 2 -c 8 http://127.0.0.1:$NODE_FLAME_PORT/ && echo '// edited' >> server.js && sleep 3 && ` +
      `node ${autocannon} -d 2 -c 8 http://127.0.0.1:$NODE_FLAME_PORT/`,
    hot: ['makeRows', 'renderTable'],
  },
  {
    name: 'webpack',
    app: 'webpack-build',
    command: () => ['node_modules/.bin/webpack'],
    hot: ['_visit', 'expr_atom'],
    prepare: (work) => writeModules(work, 400),
  },
  {
    name: 'eslint',
    app: 'eslint-lint',
    command: () => ['node_modules/.bin/eslint', 'input'],
    hot: ['traverseSync', 'visitPattern', 'collectUnusedVariables'],
    // webpack's own lib (~150 files) as the code base to lint.
    prepare: (work) => {
      const lib = join(work, 'node_modules', 'webpack', 'lib');
      mkdirSync(join(work, 'input'));
      for (const f of readdirSync(lib).filter((n) => n.endsWith('.js'))) cpSync(join(lib, f), join(work, 'input', f));
    },
  },
  // Dart compiled to one 5 MB JavaScript file by dart2js: its own names (`$1`, `$when`), everything in one script.
  {
    name: 'sass',
    app: 'sass-compile',
    command: () => ['node_modules/.bin/sass', '--no-source-map', 'style.scss', 'style.css'],
    hot: ['_evaluateArguments$1', 'scope$1$3$semiGlobal$when'],
  },
  {
    name: 'markdown-it',
    app: 'markdown-render',
    command: () => ['node', 'render.js'],
    hot: ['StateBlock', 'escapedSplit'],
    // The installed packages' READMEs, in name order, repeated to ~3 MB of Markdown.
    prepare: (work) => {
      const modules = join(work, 'node_modules');
      const docs = readdirSync(modules)
        .sort()
        .map((n) => join(modules, n, 'README.md'))
        .filter((f) => existsSync(f))
        .map((f) => readFileSync(f, 'utf8'))
        .join('\n\n');
      writeFileSync(join(work, 'input.md'), docs.repeat(Math.max(1, Math.ceil(3e6 / Math.max(docs.length, 1)))));
    },
  },
];
