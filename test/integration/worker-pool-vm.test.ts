// vitest --pool=threads in small: worker threads started one after another (each ended by terminate() once its
// file ran, the next one started then), each evaluating its test file transformed in memory through
// vm.runInThisContext with its map inline (vite-node), its test code blocking the thread until it is done.
// V8 gives a new worker the ended one's isolate address, and --prof names a log by address and pid: the earlier
// workers' logs were overwritten. A worker ended by terminate() gets no 'exit' event, and a blocked one runs no
// timer: its inline maps were never saved. Each worker's function must be named at its file's own line in every mode.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/paths';
import { reportJson, runCli, runDirOf } from '../helpers/cli';
import { perfCannotRecord } from '../helpers/perfProbe';
import type { JsonFunctionRow } from '../helpers/corpusChecks';

const noPerf = perfCannotRecord;

const work = mkdtempSync(join(tmpdir(), 'nf-workerpool-'));
after(() => rmSync(work, { recursive: true, force: true }));

const FILES = ['first', 'second', 'third'];
for (const [i, name] of FILES.entries())
  writeFileSync(
    join(work, `${name}.test.ts`),
    `type N = number;
// Types only: erased by the transform, so the code's lines are not the file's and only the inline map names them.
interface Options {
  rounds: N;
  seed: N;
}

export function ${name}Work(rounds: N): N {
  let h = ${i};
  for (let k = 0; k < rounds; k++) h = (h * 31 + ((k * 2654435761) >>> ${7 + i})) | 0;
  return h;
}

export const options: Options = { rounds: 10, seed: ${i} };
`,
  );
writeFileSync(
  join(work, 'worker.cjs'),
  `const { parentPort, workerData } = require('node:worker_threads');
const ts = require(process.env.TS_PATH);
const vm = require('node:vm');
const file = require('node:path').join(__dirname, workerData + '.test.ts');
const out = ts.transpileModule(require('node:fs').readFileSync(file, 'utf8'), {
  fileName: file,
  compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2020, inlineSourceMap: true, inlineSources: true },
}).outputText;
const wrapped = "'use strict';(function(exports, require, module, __filename, __dirname) {" + out + '\\n})';
const mod = { exports: {} };
vm.runInThisContext(wrapped, { filename: file })(mod.exports, require, mod, file, __dirname);
// The test: blocks the thread from the module's load to its end, as a CPU-bound test does.
const end = Date.now() + 1000;
let x = 0;
while (Date.now() < end) x ^= mod.exports[workerData + 'Work'](2e6);
parentPort.postMessage(x);
`,
);
writeFileSync(
  join(work, 'pool.cjs'),
  `const { Worker } = require('node:worker_threads');
const files = ${JSON.stringify(FILES)};
(function next() {
  const name = files.shift();
  if (!name) return;
  const w = new Worker(require('node:path').join(__dirname, 'worker.cjs'), { workerData: name });
  w.once('message', () => w.terminate().then(next));
})();
`,
);

const declared = (name: string): number =>
  readFileSync(join(work, `${name}.test.ts`), 'utf8')
    .split('\n')
    .findIndex((l) => l.startsWith(`export function ${name}Work(`)) + 1;

type Fn = JsonFunctionRow;

for (const mode of ['cpu-prof', 'prof', 'perf'] as const) {
  test(
    `${mode}: workers started one after another, code run through vm with inline maps: each named at its file's line`,
    { timeout: 120_000, skip: mode === 'perf' && noPerf },
    async () => {
      const r = await runCli(['profile', '--mode', mode, '--no-report', '--out', join(work, 'runs'), '--', 'node', 'pool.cjs'], {
        cwd: work,
        env: { TS_PATH: join(repoRoot, 'node_modules', 'typescript') },
        killAfterMs: 100_000,
      });
      assert.equal(r.code, 0, r.stderr);
      const dir = runDirOf(r);
      const rows = reportJson<{ functions: Fn[] }>(dir).functions.filter((f) => /^(first|second|third)Work$/.test(f.name));
      const logs = readdirSync(dir).filter((n) => /^isolate-.*-v8\.log$/.test(n));
      console.log(
        `[${mode}] ${mode === 'prof' ? `${logs.length} logs; ` : ''}` +
          rows.map((f) => `${f.name} ${f.file?.slice(work.length + 1)}:${f.line} self ${(f.self * 100).toFixed(1)} %`).join('; '),
      );
      if (mode === 'prof') assert.equal(logs.length, 4, `the main isolate's log and one per worker: ${logs.join(', ')}`);
      for (const name of FILES) {
        const at = rows.filter((f) => f.name === `${name}Work`);
        assert.ok(at.length, `${name}Work is in the ${mode} profile`);
        for (const f of at) {
          assert.equal(f.file, join(work, `${name}.test.ts`));
          assert.equal(f.line, declared(name), `${name}Work at its .ts line (the worker's inline map was kept)`);
        }
        assert.ok(at.reduce((s, f) => s + f.self, 0) > 0.05, `${name}Work holds its share (${at.map((f) => f.self).join(', ')})`);
      }
    },
  );
}
