// `profile -- node server.js` prints the report of its run, and `report <run folder>` of the same run must print the
// same: one reader of a run. `profile` read a one-process run from its first file alone, so a server's report had no
// Requests and no processes, while `report` of its folder had both (and the editor's final view lost the Requests tab).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonReport } from '../../src/core/exporters/json';
import { reportJson, runCli, runDirOf } from '../helpers/cli';
import { perfCannotRecord } from '../helpers/perfProbe';

const work = mkdtempSync(join(tmpdir(), 'nf-profile-is-report-'));
after(() => rmSync(work, { recursive: true, force: true }));
writeFileSync(
  join(work, 'server.js'),
  `const http = require('node:http');
function hash(n) { let h = 0; for (let i = 0; i < n; i++) h = (h * 31 + i) | 0; return h; }
const server = http.createServer((req, res) => res.end(String(hash(req.url.startsWith('/slow') ? 4e7 : 1e4))));
server.listen(0, () => console.log('listening on http://localhost:' + server.address().port));
`,
);
// The load: a few requests of two routes, in order, then it ends (and the run with it).
writeFileSync(
  join(work, 'load.js'),
  `const port = process.argv[2];
(async () => {
  for (let i = 0; i < 6; i++) {
    await fetch('http://localhost:' + port + '/slow?i=' + i).then((r) => r.text());
    await fetch('http://localhost:' + port + '/fast').then((r) => r.text());
  }
})();
`,
);

for (const mode of ['cpu-prof', 'prof', 'perf'] as const) {
  test(
    `${mode}: profile's report of a one-process server is report's of its run folder, Requests and processes included`,
    { timeout: 180_000, skip: mode === 'perf' && perfCannotRecord },
    async () => {
      const r = await runCli(
        [
          'profile',
          '--mode',
          mode,
          '--format',
          'json',
          '--top',
          '100000',
          '--out',
          join(work, `runs-${mode}`),
          // The app writes to the same standard output: the report goes to a file.
          '-o',
          join(work, `${mode}.json`),
          '--load',
          `"${process.execPath}" load.js $NODE_FLAME_PORT`,
          '--',
          'node',
          'server.js',
        ],
        { cwd: work, killAfterMs: 150_000 },
      );
      assert.equal(r.code, 0, r.stderr);
      const runDir = runDirOf(r);
      const fromProfile = JSON.parse(readFileSync(join(work, `${mode}.json`), 'utf8')) as JsonReport;
      const fromReport = reportJson<JsonReport>(runDir);
      assert.deepEqual(fromProfile, fromReport, 'profile and report of the same run answer the same');
      const routes = (fromProfile.requests?.routes ?? []).map((x) => x.key);
      console.log(`[profile-is-report] ${mode}: routes ${routes.join(', ')}; processes ${fromProfile.processes?.length}`);
      assert.ok(routes.includes('GET /slow'), `profile's report has the server's routes: ${routes.join(', ')}`);
      assert.equal(fromProfile.requests?.routes.find((x) => x.key === 'GET /slow')?.count, 6);
      assert.equal(fromProfile.processes?.length, 1, "profile's report lists the run's process");
    },
  );
}

test("cpu-prof: profile's text report of a server has its Requests", { timeout: 180_000 }, async () => {
  const r = await runCli(
    [
      'profile',
      '--mode',
      'cpu-prof',
      '--out',
      join(work, 'runs-text'),
      '--load',
      `"${process.execPath}" load.js $NODE_FLAME_PORT`,
      '--',
      'node',
      'server.js',
    ],
    { cwd: work, killAfterMs: 150_000 },
  );
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /\[Requests\]:[\s\S]*GET \/slow/, r.stdout.slice(0, 3000));
});
