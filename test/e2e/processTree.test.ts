// "Profile Node App" on a workspace with no nodeFlame.program: the pick offers the package.json `start`
// script (npm start → a CLI from node_modules/.bin → an HTTP server → a worker process), runs it with a
// load command, and the flame graph shows the worker's function; the process picker lists the process tree
// with shares, and choosing only the worker narrows the graph to it; no process of the run is left.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Frame } from 'playwright-core';
import { eventually, startVSCode, repoRoot } from './helpers';

const PROFILE = 'Node Flame: Profile Node App';

/** The top-down chart: the widest countPrimes box against the widest box (the root), and the process levels drawn. */
function hotShare(frame: Frame): Promise<{ ratio: number; levels: number; hot: number[] }> {
  return frame.$$eval('[data-tree="top"] g.frame', (gs) => {
    const width = (g: Element) => g.querySelector('rect')?.getBoundingClientRect().width ?? 0;
    const root = Math.max(...gs.map(width));
    const hots = gs.filter((g) => /countPrimes/.test(g.getAttribute('name') ?? '')).map(width);
    const hot = Math.max(0, ...hots);
    return {
      hot: hots.map((w) => Math.round((w / root) * 1000) / 1000),
      ratio: root > 0 ? hot / root : 0,
      levels: gs.filter((g) => /^thread pid /.test(g.getAttribute('name') ?? '') && width(g) > 0).length,
    };
  });
}

/** The picker's rows and its heading's state. */
function picker(frame: Frame) {
  return frame.evaluate(() => {
    const state = document.querySelector('.proc-state');
    return {
      shown: state?.getAttribute('data-shown') ?? '',
      share: Number(state?.getAttribute('data-share')),
      text: state?.textContent ?? '',
      rows: [...document.querySelectorAll<HTMLElement>('.proc-row')].map((r) => ({
        pid: Number(r.dataset.pid),
        share: Number(r.dataset.share),
        indent: parseFloat(r.style.paddingLeft) || 0,
        shown: r.dataset.shown === 'true',
        text: r.textContent ?? '',
      })),
    };
  });
}

test(
  "Profile Node App: the package.json start script of a process tree, every process profiled, the worker's function drawn",
  { timeout: 600_000 },
  async () => {
    const ws = mkdtempSync(join(tmpdir(), 'nf-e2e-tree-'));
    cpSync(join(repoRoot, 'examples', 'process-tree'), ws, { recursive: true });
    mkdirSync(join(ws, 'node_modules', '.bin'), { recursive: true });
    symlinkSync('../../bin/pt-serve.js', join(ws, 'node_modules', '.bin', 'pt-serve'));
    mkdirSync(join(ws, '.vscode'), { recursive: true });
    const load = 'for i in $(seq 30); do curl -s http://127.0.0.1:$NODE_FLAME_PORT/ >/dev/null; done';
    writeFileSync(join(ws, '.vscode', 'settings.json'), JSON.stringify({ 'nodeFlame.mode': 'cpu-prof', 'nodeFlame.loadCommand': load }));
    const vs = await startVSCode({ workspace: ws, name: 'process-tree' });
    let failed = true;
    try {
      await vs.waitForCommand(PROFILE);
      await vs.runCommand(PROFILE);
      await vs.quickPickWait(30_000);
      await vs.quickPickSelect('npm run start', 15_000);
      const root = join(ws, '.nodeflame');
      let dir = '';
      let info: { processes?: { pid: number; command: string[] }[]; stoppedBy?: string } = {};
      for (const deadline = Date.now() + 120_000; Date.now() < deadline && !info.stoppedBy; ) {
        await vs.page.waitForTimeout(500);
        const name = existsSync(root)
          ? readdirSync(root).find((n) => /^\d{8}-\d{6}-cpu-prof/.test(n) && existsSync(join(root, n, 'run.json')))
          : undefined;
        if (!name) continue;
        dir = join(root, name);
        try {
          info = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as typeof info;
        } catch {
          // being written
        }
      }
      assert.equal(info.stoppedBy, 'load', JSON.stringify(info));
      assert.ok((info.processes?.length ?? 0) >= 3, JSON.stringify(info.processes?.map((p) => p.command.slice(-1))));
      // A live run's page painted while it ran: the final profile's view is the one to read (the live bar can go
      // before the final profile is painted, so the page's own final-paint mark decides).
      const frame = await vs.webviewFrame(
        `body[data-profile="${dir.split('/').pop()}"][data-first-paint-ms]:is([data-final-paint-ms], :not([data-live])) svg g.frame`,
        120_000,
      );
      const names = await frame.$$eval('[data-tree="top"] g.frame', (gs) => gs.map((g) => g.getAttribute('name') ?? ''));
      assert.ok(
        names.some((n) => /countPrimes/.test(n)),
        `the worker's countPrimes is drawn: ${names.slice(0, 30).join(' | ')}`,
      );
      await vs.screenshot('process-tree');

      // The picker: the process tree (indented by parent pid) with each one's share of the samples, all shown.
      const procs = info.processes ?? [];
      const worker = procs.find((p) => p.command.some((w) => w.endsWith('worker.js')));
      const server = procs.find((p) => p.command.some((w) => w.endsWith('server.js')));
      assert.ok(worker && server, JSON.stringify(procs.map((p) => p.command.slice(-1))));
      await frame.click('details.processes > summary');
      // The launchers that only waited for the process they started (the .bin CLI forks the server and waits; npm
      // too when the run is long enough for its start-up to be under a tenth of it) start out of the picker, their
      // rows saying so; Show all brings them back.
      const first = await eventually(
        () => picker(frame),
        (p) => {
          const waited = p.rows.filter((r) => /waited for its child processes/.test(r.text));
          assert.ok(waited.length >= 1, `a launcher that waited: ${JSON.stringify(p.rows)}`);
          assert.ok(
            p.rows.filter((r) => r.share > 0).every((r) => r.shown !== waited.includes(r)),
            `left out exactly the processes that waited: ${JSON.stringify(p.rows)}`,
          );
          assert.ok(p.rows.find((r) => r.pid === worker?.pid)?.shown, 'the worker shown');
          assert.ok(p.share < 1, `the shown share is less than all samples: ${p.share}`);
        },
      );
      assert.ok(first.rows.length >= 4, JSON.stringify(first.rows));
      await frame.click('.proc-all');
      const all = await eventually(
        () => picker(frame),
        (p) => {
          assert.ok(p.rows.filter((r) => r.share > 0).length >= 3, `≥ 3 processes with samples: ${JSON.stringify(p.rows)}`);
          assert.ok(
            p.rows.every((r) => r.shown),
            'all shown after Show all',
          );
          assert.equal(p.share, 1);
        },
      );
      const w = all.rows.find((r) => r.pid === worker.pid);
      const sv = all.rows.find((r) => r.pid === server.pid);
      assert.ok(w && sv, JSON.stringify(all.rows));
      assert.ok(w.indent > sv.indent, `the worker under the server that forked it: ${JSON.stringify(all.rows)}`);
      assert.ok(w.share > 0 && w.share < 1, `the worker's share: ${w.share}`);
      assert.ok(
        Math.abs(all.rows.filter((r) => r.share > 0).reduce((a, r) => a + r.share, 0) - 1) < 1e-6,
        'the shares add up to all samples',
      );
      // The picker follows the host's facts, the chart its tree (a message of its own): read the chart once it holds still.
      const [before] = await eventually(
        async () => [await hotShare(frame), await vs.page.waitForTimeout(400).then(() => hotShare(frame))],
        ([a, b]) => {
          assert.ok(a.levels >= 2, `a level per process while all are shown: ${JSON.stringify(a)}`);
          assert.deepEqual(a, b, 'the chart holds still');
        },
      );
      console.log(`[e2e] all shown: countPrimes ${JSON.stringify(before)}, worker ${w.share.toFixed(3)}`);
      // Only the worker: its tree alone (no process levels) is the root, the figures the worker's.
      await frame.click(`.proc-row[data-pid="${worker.pid}"] .proc-only`);
      const one = await eventually(
        () => picker(frame),
        (p) => {
          assert.equal(p.shown, '1', p.text);
          assert.ok(Math.abs(p.share - w.share) < 1e-9, `${p.share} vs ${w.share}`);
          assert.deepEqual(
            p.rows.filter((r) => r.shown).map((r) => r.pid),
            [worker.pid],
          );
        },
      );
      assert.notEqual(one.text, all.text, 'the heading says what is shown');
      const after = await eventually(
        () => hotShare(frame),
        (h) => {
          assert.equal(h.levels, 0, `no process level left: ${JSON.stringify(h)}`);
          // The root is the worker's samples now (idle waits for requests included): countPrimes's part of it
          // grows by 1 / the worker's share.
          const expected = before.ratio / w.share;
          assert.ok(
            Math.abs(h.ratio - expected) < 0.25 * expected,
            `countPrimes ${h.ratio.toFixed(3)} of the worker's root (${h.hot.join(', ')}), ${before.ratio.toFixed(3)} of all (${before.hot.join(', ')}), worker ${w.share.toFixed(3)}`,
          );
        },
      );
      await vs.screenshot('process-tree-worker');
      // The Timeline of the worker alone: its samples on the run's time axis (the merged run keeps every
      // process's sample times), with the run's markers; not the "no timeline" note.
      await frame.locator('vscode-tab-header[data-tab="timeline"]').dispatchEvent('click');
      const tl = frame.locator('.timeline-tab');
      const shown = await eventually(
        async () => ({
          boxes: Number(await tl.getAttribute('data-boxes')),
          noTime: await tl.getAttribute('data-no-time'),
          window: (await tl.getAttribute('data-window')) ?? '',
          markers: (await tl.getAttribute('data-markers')) ?? '',
        }),
        (t) => {
          assert.equal(t.noTime, null, `the worker has a Timeline: ${JSON.stringify(t)}`);
          assert.ok(t.boxes > 0, `the worker's stacks drawn along time: ${JSON.stringify(t)}`);
          assert.match(t.markers, /\bstart\b.*\bloadStart\b/, JSON.stringify(t));
        },
        30_000,
      );
      console.log(`[e2e] the worker's Timeline: ${JSON.stringify(shown)}`);
      await vs.screenshot('process-tree-worker-timeline');
      await frame.locator('vscode-tab-header[data-tab="flame"]').dispatchEvent('click');
      // Show all again: back to every process.
      await frame.click('.proc-all');
      await eventually(
        () => hotShare(frame),
        (h) => assert.ok(h.levels >= 2 && Math.abs(h.ratio - before.ratio) < 0.02, JSON.stringify({ h, before, after })),
      );
      // All shown again: the activity graph has a row per process, the worker's among them.
      await frame.locator('vscode-tab-header[data-tab="timeline"]').dispatchEvent('click');
      const lanes = await eventually(
        async () => JSON.parse((await tl.getAttribute('data-lanes')) ?? '[]') as string[],
        (l) => {
          assert.ok(l.length >= 3, `a row per process with samples: ${JSON.stringify(l)}`);
          assert.ok(
            l.some((n) => n.startsWith(`pid ${worker.pid} `)),
            JSON.stringify(l),
          );
        },
        30_000,
      );
      console.log(`[e2e] activity rows of all processes: ${JSON.stringify(lanes)}`);
      await vs.screenshot('process-tree-timeline-lanes');
      // VS Code itself names the workspace folder on its command line: only the fixture's processes count.
      const left = spawnSync('pgrep', ['-af', ws], { encoding: 'utf8' })
        .stdout.split('\n')
        .filter((l) => /pt-serve|server\.js|worker\.js/.test(l) && !l.includes('pgrep'));
      assert.deepEqual(left, [], 'no process of the run left');
      failed = false;
    } finally {
      await vs.close({ failed });
      rmSync(ws, { recursive: true, force: true });
    }
  },
);
