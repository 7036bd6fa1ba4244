// A server started by nodemon (pinned in the corpus), its runs kept in a folder of the app (`--out profiles`; the
// default `.nodeflame` is a dot-folder nodemon does not watch). Each process's record used to be
// `processes/<pid>.json`, a file nodemon restarts on: every new server's record restarted it again, ~50 servers in an
// 8 s run, their profiles mostly lost. Now one server serves the whole load, in every mode that records processes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, runDirOf } from '../helpers/cli';
import { repoRoot } from '../helpers/paths';
import { installCorpus } from '../helpers/corpusInstall';
import { readProcessRecords } from '../../src/launch/run/processRecords';

const autocannon = join(repoRoot, 'node_modules', 'autocannon', 'autocannon.js');
const SERVER = `const http = require('node:http');
function render(n) {
  let s = '';
  for (let i = 0; i < n; i++) s += '<li>' + ((i * 2654435761) % 1000) + '</li>';
  return s;
}
const server = http.createServer((req, res) => res.end(render(3000)));
server.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('Server listening at http://127.0.0.1:' + server.address().port));
`;

for (const mode of ['cpu-prof', 'prof']) {
  test(`${mode}: nodemon under load keeps one server: the run's own files do not restart it`, { timeout: 600_000 }, async () => {
    const { dir: corpus } = installCorpus(join(repoRoot, 'test', 'corpus'));
    const work = mkdtempSync(join(tmpdir(), 'nf-nodemon-'));
    try {
      writeFileSync(join(work, 'server.js'), SERVER);
      writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'nodemon-app', private: true, main: 'server.js' }));
      symlinkSync(join(corpus, 'node_modules'), join(work, 'node_modules'));
      const port = 21000 + (process.pid % 20000);
      const r = await runCli(
        // No `server.js` word: package.json's main names it (a `.js` word would make nodemon look like node).
        [
          'profile',
          '--mode',
          mode,
          '--no-report',
          '--out',
          join(work, 'profiles'),
          '--load',
          `node ${autocannon} -d 4 -c 4 http://127.0.0.1:$NODE_FLAME_PORT/`,
          '--',
          'node_modules/.bin/nodemon',
          '--exitcrash',
        ],
        { cwd: work, env: { PORT: String(port) }, killAfterMs: 120_000 },
      );
      assert.equal(r.code, 0, r.stderr);
      const run = runDirOf(r);
      assert.ok(run.startsWith(join(work, 'profiles')), `the run folder is in the app's folder: ${run}`);
      const servers = readProcessRecords(run).filter((p) => p.argv.some((a) => a.endsWith('server.js')));
      const restarts = ((r.stdout + r.stderr).match(/restarting due to changes/g) ?? []).length;
      console.log(`[nodemon] ${mode}: ${servers.length} server process(es), nodemon restarts: ${restarts}`);
      assert.equal(restarts, 0, 'nodemon saw no change');
      assert.equal(servers.length, 1, `one server: ${servers.map((s) => s.pid).join(', ')}`);
      assert.ok(
        readdirSync(join(run, 'processes')).every((n) => !n.endsWith('.json')),
        'no record nodemon watches',
      );
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
}
