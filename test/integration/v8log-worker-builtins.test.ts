// prof mode with worker threads (as `jest --workerThreads`): a worker isolate's log lists V8's copy of
// the embedded builtins as the node binary again, at another address. Its ticks are V8 builtins (one
// `SortCompareDefault` row), not a shared library `node` with `Builtins_*` symbols, and the warning
// about an inferred copy does not claim the proc-maps file was missing when it was saved.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../helpers/paths';
import { runCli, runDirOf } from '../helpers/cli';

const work = mkdtempSync(join(tmpdir(), 'nf-wbuiltins-'));
after(() => rmSync(work, { recursive: true, force: true }));
writeFileSync(
  join(work, 'sort.js'),
  `const { Worker, isMainThread } = require('node:worker_threads');
function sortWork() {
  const a = Array.from({ length: 100000 }, (_, i) => 'k' + ((i * 7919) % 100003));
  const end = Date.now() + 1200;
  while (Date.now() < end) { a.slice().sort(); a.slice().sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)); }
}
if (isMainThread) for (let i = 0; i < 3; i++) setTimeout(() => new Worker(__filename), i * 300);
else sortWork();
`,
);

interface Report {
  categories: Record<string, number>;
  functions: { name: string; category: string; self: number }[];
  findings: { message: string }[];
}

test(
  'prof, worker threads sorting: builtins in the workers are V8 builtins, each once; no shared library node',
  { timeout: 90_000 },
  async () => {
    const r = await runCli(['profile', '--mode', 'prof', '--no-report', '--out', join(work, 'runs'), '--', 'node', 'sort.js'], {
      cwd: work,
      killAfterMs: 80_000,
    });
    assert.equal(r.code, 0, r.stderr);
    const dir = runDirOf(r);
    const names = readdirSync(dir);
    assert.ok(
      names.some((n) => /^proc-maps-\d+\.txt$/.test(n)),
      'the run saved its proc-maps file',
    );
    // The input holds the case: a worker's log names the node binary at two places.
    const node = realpathSync(process.execPath);
    const twice = names
      .filter((n) => n.endsWith('-v8.log'))
      .some((n) => new Set(readFileSync(join(dir, n), 'latin1').match(new RegExp(`^shared-library,${node},0x[0-9a-f]+`, 'gm'))).size > 1);
    assert.ok(twice, 'a log lists the node binary twice');
    const rep = spawnSync(process.execPath, [cli, 'report', dir, '--format', 'json', '--top', '300'], { encoding: 'utf8' });
    assert.equal(rep.status, 0, rep.stderr);
    const j = JSON.parse(rep.stdout) as Report;
    const sortRows = j.functions.filter((f) => /SortCompareDefault/.test(f.name));
    console.log(
      `shared-lib ${j.categories['shared-lib']}, v8 ${j.categories.v8}; ${sortRows.map((f) => `${f.name} ${f.category} ${f.self}`).join(', ')}`,
    );
    assert.deepEqual(
      sortRows.map((f) => [f.name, f.category]),
      [['SortCompareDefault', 'v8']],
    );
    assert.deepEqual(
      j.functions.filter((f) => f.name.startsWith('Builtins_')).map((f) => f.name),
      [],
    );
    assert.ok(!j.findings.some((f) => /shared library node\b/.test(f.message)), JSON.stringify(j.findings));
    assert.doesNotMatch(rep.stderr, /no proc-maps file was saved/);
    const text = spawnSync(process.execPath, [cli, 'report', dir], { encoding: 'utf8' }).stdout;
    const libs = text.split('[Shared libraries]:')[1]?.split('[JavaScript]:')[0] ?? '';
    assert.ok(!libs.includes(node), `the node binary is no shared library:\n${libs}`);
  },
);
