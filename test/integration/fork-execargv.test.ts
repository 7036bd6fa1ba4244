// vitest's forks pool in small: an ESM parent forks each test process with its own execArgv (tinypool passes
// `--conditions node …`, which replaces the parent's --prof / --perf-prof), and each child evaluates its test file
// transformed in memory through vm with the map inline (vite-node). prof and perf must name each child's hot
// function at its file's own line, as cpu-prof does; before the preload put the run's flags back into such a fork,
// those children were not profiled at all in prof and perf modes.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadProfile } from '../../src/core/importers';
import { repoRoot } from '../helpers/paths';
import { reportJson, runCli, runDirOf } from '../helpers/cli';
import { perfCannotRecord } from '../helpers/perfProbe';
import type { JsonFunctionRow } from '../helpers/corpusChecks';

const noPerf = perfCannotRecord;

const work = mkdtempSync(join(tmpdir(), 'nf-forkargv-'));
after(() => rmSync(work, { recursive: true, force: true }));

const FILES = ['alpha', 'beta'];
for (const [i, name] of FILES.entries())
  writeFileSync(
    join(work, `${name}.test.ts`),
    `import { strict as assert } from 'node:assert';

type N = number;
// Types only: erased by the transform, so the code's lines are not the file's and only the inline map names them.
interface Options {
  rounds: N;
  seed: N;
}

export function ${name}Work(rounds: N): N {
  let h = 0;
  for (let k = 0; k < rounds; k++) h = (h * 31 + ((k * ${2654435761 + i}) >>> 7)) | 0;
  return h;
}

const options: Options = { rounds: 10, seed: ${i} };
assert.ok(typeof ${name}Work(options.rounds) === 'number');
`,
  );
writeFileSync(
  join(work, 'runner.cjs'),
  `const ts = require(process.env.TS_PATH);
const vm = require('node:vm');
const file = require('node:path').join(__dirname, process.argv[2] + '.test.ts');
const out = ts.transpileModule(require('node:fs').readFileSync(file, 'utf8'), {
  fileName: file,
  compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2020, inlineSourceMap: true, inlineSources: true },
}).outputText;
// vite-node's wrapper: the module's code inside one function, on the first line
const wrapped = "'use strict';(function(exports, require, module, __filename, __dirname) {" + out + '\\n})';
const fn = vm.runInThisContext(wrapped, { filename: file });
const mod = { exports: {} };
fn(mod.exports, require, mod, file, __dirname);
const end = Date.now() + 1500;
let x = 0;
while (Date.now() < end) x ^= mod.exports[process.argv[2] + 'Work'](2e6);
console.log(process.argv[2], x !== 0.5);
`,
);
writeFileSync(
  join(work, 'pool.mjs'),
  `import { fork } from 'node:child_process';
import { join } from 'node:path';
let left = ${FILES.length};
for (const name of ${JSON.stringify(FILES)})
  fork(join(import.meta.dirname, 'runner.cjs'), [name], { execArgv: ['--conditions', 'node', '--conditions', 'development'] }).on(
    'exit',
    (c) => (c ? process.exit(c) : --left || process.exit(0)),
  );
`,
);

const declared = (name: string): number =>
  readFileSync(join(work, `${name}.test.ts`), 'utf8')
    .split('\n')
    .findIndex((l) => l.startsWith(`export function ${name}Work(`)) + 1;

type Fn = JsonFunctionRow;

for (const mode of ['prof', 'perf'] as const) {
  test(
    `${mode}: each test process a pool forks with its own execArgv is profiled, its function named at its file's line`,
    { timeout: 120_000, skip: mode === 'perf' && noPerf },
    async () => {
      const r = await runCli(['profile', '--mode', mode, '--no-report', '--out', join(work, 'runs'), '--', 'node', 'pool.mjs'], {
        cwd: work,
        env: { TS_PATH: join(repoRoot, 'node_modules', 'typescript') },
        killAfterMs: 100_000,
      });
      assert.equal(r.code, 0, r.stderr);
      const dir = runDirOf(r);
      const report = reportJson<{ functions: Fn[]; processes?: { pid: number }[] }>(dir);
      const rows = report.functions.filter((f) => /^(alpha|beta)Work$/.test(f.name));
      console.log(
        `[${mode}] ${rows.map((f) => `${f.name} ${f.file?.slice(work.length + 1)}:${f.line} self ${(f.self * 100).toFixed(1)} %`).join('; ')}`,
      );
      for (const name of FILES) {
        const fn = `${name}Work`;
        const at = rows.filter((f) => f.name === fn);
        assert.ok(at.length, `${fn} is in the ${mode} profile (its process was forked with its own execArgv)`);
        // Named at the .ts file's own line (the inline map applied), and nowhere else: never a wrong line.
        for (const f of at) {
          assert.equal(f.file, join(work, `${name}.test.ts`));
          assert.equal(f.line, declared(name));
        }
        assert.ok(at.reduce((s, f) => s + f.self, 0) > 0.05, `${fn} holds its share of the samples (${at.map((f) => f.self).join(', ')})`);
      }
    },
  );
}

test(
  'perf: a node started through a shell with arguments of its own (no profiler flags): its frames are said unnamed, in the notification too',
  { timeout: 120_000, skip: noPerf },
  async () => {
    writeFileSync(
      join(work, 'bypass.cjs'),
      // Through a shell: spawn-like calls of process.execPath itself get the run's flags from the preload (test
      // plain-program-spawn), and a plain program run has no node shim on PATH.
      `require('node:child_process').execSync(JSON.stringify(process.execPath) + ' --no-warnings ' + JSON.stringify(require('node:path').join(__dirname, 'runner.cjs')) + ' alpha', { stdio: 'inherit' });\n`,
    );
    const r = await runCli(['profile', '--mode', 'perf', '--no-report', '--out', join(work, 'runs'), '--', 'node', 'bypass.cjs'], {
      cwd: work,
      env: { TS_PATH: join(repoRoot, 'node_modules', 'typescript') },
      killAfterMs: 100_000,
    });
    assert.equal(r.code, 0, r.stderr);
    const dir = runDirOf(r);
    const p = await loadProfile(join(dir, 'perf.data'), { sourceMaps: false });
    const unnamed = (p.meta.unnamed ?? []).filter((w) => /JavaScript frames could not be named: \/tmp\/perf-\d+\.map was missing/.test(w));
    console.log(`[bypass] ${unnamed.join(' | ')}`);
    assert.equal(unnamed.length, 1, `the child's missing JIT map is in meta.unnamed: ${JSON.stringify(p.meta.unnamed)}`);
    let named = 0;
    p.tree.forEachStack((stack, w) => {
      if (stack.some((f) => p.frames[f].name === 'alphaWork')) named += w;
    });
    assert.equal(named, 0, 'no frame of the unprofiled child is given a name');
  },
);
