// Issue 37, item 19: the HTML page is sent to others, so it must not carry the environment of the machine it
// was made on (PATH, HOME), the launcher's flags and preload, or absolute paths. Real runs of a small app
// under `node-flame profile`, exported by the CLI as a user would.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { EmbeddedProfile } from '../../src/core/viewer/embed';
import { cli } from '../helpers/paths';
import { runCli } from '../helpers/cli';

const pageData = (html: string) => JSON.parse(/id="node-flame-data">([^]*?)<\/script>/.exec(html)![1]) as EmbeddedProfile;

const APP = `function work(n) { let s = 0; for (let i = 0; i < n; i++) s += Math.sqrt(i) * Math.sin(i); return s; }
const t = Date.now();
while (Date.now() - t < 600) work(1e5);
`;

for (const mode of ['prof', 'perf', 'cpu-prof'] as const) {
  test(`${mode}: the exported HTML page holds no PATH, HOME, launcher flags or absolute paths`, { timeout: 120_000 }, async () => {
    // The app lives in the home folder the CLI sees, as a user's project does.
    const home = mkdtempSync(join(tmpdir(), 'nf-share-home-'));
    try {
      const app = join(home, 'projects', 'shop');
      mkdirSync(app, { recursive: true });
      writeFileSync(join(app, 'app.js'), APP);
      const out = join(home, 'page.html');
      // A PATH of this test's own, so finding it in the page can only mean the page copied it.
      const path = `${join(home, 'bin-private')}:${process.env.PATH}`;
      const r = await runCli(['profile', '-m', mode, '-f', 'html', '-o', out, '--', 'node', 'app.js'], {
        cwd: app,
        env: { HOME: home, PATH: path },
        killAfterMs: 100_000,
      });
      assert.equal(r.code, 0, r.stderr);
      const html = readFileSync(out, 'utf8');
      const page = pageData(html);
      const dist = dirname(cli);
      for (const [what, s] of [
        ['PATH', path],
        ['HOME', home],
        ['the app folder', app],
        ["the CLI's dist folder", dist],
        ['--require', '--require'],
        ['-r <preload>', '-r '],
        ['--prof', '--prof'],
        ['--logfile', '--logfile'],
        ['perf record', 'perf record'],
      ])
        assert.ok(!html.includes(s), `${mode}: the page holds ${what} (${s.slice(0, 80)}) at ${html.indexOf(s)}`);
      // What stays: the user's command and the app's file, relative to its folder, for the page's labels.
      assert.equal(page.meta.command, 'node app.js');
      assert.ok(
        page.frames.some((f) => f.file === 'app.js' && f.name === 'work'),
        'work in app.js',
      );
      assert.ok(
        page.frames.every((f) => !f.file.startsWith('/') || f.file.startsWith('/usr/')),
        `${mode}: absolute paths: ${[...new Set(page.frames.map((f) => f.file).filter((f) => f.startsWith('/')))].slice(0, 5).join(', ')}`,
      );
      console.log(`[share] ${mode}: ${(html.length / 1e6).toFixed(2)} MB page; command "${page.meta.command}", path "${page.path}"`);
      if (mode !== 'prof') return;
      // The comparison's page, of the run with itself given by absolute path: its paths are relative too.
      const run = /Run folder: (.+)/.exec(r.stderr)![1].trim();
      const diffOut = join(home, 'diff.html');
      const d = await runCli(['diff', run, run, '-f', 'html', '-o', diffOut], {
        cwd: home,
        env: { HOME: home, PATH: path },
        killAfterMs: 60_000,
      });
      assert.equal(d.code, 0, d.stderr);
      const diffHtml = readFileSync(diffOut, 'utf8');
      for (const s of [home, app, dist, path]) assert.ok(!diffHtml.includes(s), `diff page holds ${s.slice(0, 80)}`);
      assert.match(diffHtml, /<td>app\.js:1<\/td>/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
}
