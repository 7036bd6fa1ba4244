// Heap mode in a real VS Code: "Profile Node App" with nodeFlame.mode = heap on the keep/garbage fixture;
// the flame graph draws both functions, and the CodeLens over them speaks allocated bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { eventually, startVSCode, repoRoot } from './helpers';
import { cli } from '../helpers/paths';
import { freePort, killTree, spawnGroup } from './helpers/processes';

const PROFILE = 'Node Flame: Profile Node App';
const APP = 'keep-and-garbage.js';
const LENS = /🔥 (\d+\.\d)% of allocated bytes · ([\d.,]+) (kB|MB|GB) · (\d+\.\d)% self/;

test('heap mode: Profile Node App draws the keeping and the garbage-making function, CodeLens in bytes', { timeout: 300_000 }, async () => {
  const ws = mkdtempSync(join(tmpdir(), 'nf-e2e-heap-'));
  copyFileSync(join(repoRoot, 'test/fixtures/heap', APP), join(ws, APP));
  mkdirSync(join(ws, '.vscode'), { recursive: true });
  writeFileSync(
    join(ws, '.vscode', 'settings.json'),
    JSON.stringify({ 'nodeFlame.program': APP, 'nodeFlame.args': ['20'], 'nodeFlame.mode': 'heap' }),
  );
  const vs = await startVSCode({ workspace: ws, name: 'heap' });
  let failed = true;
  try {
    await vs.waitForCommand(PROFILE);
    await vs.runCommand(PROFILE);
    const root = join(ws, '.nodeflame');
    const info = await eventually(
      async () => {
        const run = existsSync(root)
          ? readdirSync(root).find((n) => n.endsWith('-heap') && existsSync(join(root, n, 'run.json')))
          : undefined;
        return run
          ? { run, ...(JSON.parse(readFileSync(join(root, run, 'run.json'), 'utf8')) as { mode: string; profiles: string[] }) }
          : undefined;
      },
      (i) => assert.ok(i, 'a finished heap run'),
      120_000,
    );
    assert.equal(info!.mode, 'heap');
    const main = info!.profiles[0];
    assert.match(main, /\.heapprofile$/);
    const frame = await vs.webviewFrame(`body[data-profile="${info!.run}"][data-first-paint-ms] svg g.frame`, 120_000);
    const names = await eventually(
      () => frame.$$eval('[data-tree="top"] g.frame', (gs) => gs.map((g) => g.getAttribute('name') ?? '')),
      (ns) =>
        assert.ok(
          ns.some((n) => n.includes('makeGarbage')) && ns.some((n) => n.includes('keepRows')),
          `both functions drawn: ${ns.filter((n) => n.includes(APP)).join(' | ')}`,
        ),
    );
    console.log(`[e2e] heap: ${names.filter((n) => n.includes(APP)).join(' | ')}`);
    // The details of a frame say bytes.
    await frame.locator('[data-tree="top"] g.frame[name*="makeGarbage"]').first().hover();
    await eventually(
      () => frame.locator('.tooltip').innerText(),
      (t) => assert.match(t, /\d+(\.\d)? (kB|MB|GB)/),
    );
    await vs.screenshot('heap-flame');

    await vs.openFile(APP);
    const lenses = await eventually(
      () =>
        vs.page.$$eval('.part.editor .editor-group-container.active .codelens-decoration', (els) =>
          els.map((el) => (el as HTMLElement).innerText.replace(/\u00a0/g, ' ')),
        ),
      (ls) => assert.ok(ls.filter((l) => LENS.test(l)).length >= 2, `lenses: ${JSON.stringify(ls)}`),
      60_000,
    ).catch(async (e: Error) => {
      const groups = await vs.page.$$eval('.part.editor .editor-group-container', (gs) =>
        gs.map(
          (g) =>
            `${g.classList.contains('active') ? 'active' : 'inactive'}: ${g.querySelector('.tab.active')?.getAttribute('aria-label') ?? 'no tab'}`,
        ),
      );
      throw new Error(`${e.message}; editor groups: ${groups.join(' | ')}`);
    });
    console.log(`[e2e] heap CodeLens: ${lenses.join(' | ')}`);
    const shares = lenses
      .map((l) => LENS.exec(l))
      .filter((m) => m)
      .map((m) => Number(m![1]));
    // makeGarbage allocates ten rows for each one keepRows keeps.
    assert.ok(Math.max(...shares) > 70, `the garbage maker holds most allocated bytes: ${lenses.join(' | ')}`);
    await vs.screenshot('heap-codelens');
    failed = false;
  } finally {
    await vs.close({ failed });
    rmSync(ws, { recursive: true, force: true });
  }
});

test(
  'Compare Profiles… on a short and a long live heap run: the Growth column says keepRows kept MBs more',
  { timeout: 300_000 },
  async () => {
    const ws = mkdtempSync(join(tmpdir(), 'nf-e2e-heapdiff-'));
    copyFileSync(join(repoRoot, 'test/fixtures/heap', APP), join(ws, APP));
    const root = join(ws, '.nodeflame');
    for (const rounds of ['5', '40']) {
      const r = spawnSync(
        process.execPath,
        [cli, 'profile', '--mode', 'heap', '--heap-samples', 'live', '--no-report', '--out', root, '--', 'node', APP, rounds],
        { cwd: ws, encoding: 'utf8' },
      );
      assert.equal(r.status, 0, r.stderr);
      // Run folders are named by the second they start in.
      await new Promise((res) => setTimeout(res, 1100));
    }
    const [short, long] = readdirSync(root)
      .filter((n) => /^\d{8}-\d{6}-heap$/.test(n))
      .sort();
    const vs = await startVSCode({ workspace: ws, name: 'heap-compare' });
    let failed = true;
    try {
      await vs.waitForCommand('Node Flame: Compare Profiles…');
      await vs.runCommand('Node Flame: Compare Profiles…');
      await eventually(
        () => vs.quickPickTitle(),
        (t) => assert.match(t, /BEFORE/),
      );
      await vs.quickPickSelect(new RegExp(short));
      await eventually(
        () => vs.quickPickTitle(),
        (t) => assert.match(t, /AFTER/),
      );
      await vs.quickPickSelect(new RegExp(long));
      const frame = await vs.webviewFrame('body[data-mode="diff"][data-first-paint-ms] [data-tree="diff"] g.frame', 90_000);
      const head = await eventually(
        () => frame.locator('.changes-table thead th').allInnerTexts(),
        (h) => assert.equal(h[5], 'Growth'),
      );
      const row = frame.locator('.changes-table tbody tr').filter({ hasText: 'keepRows' }).first();
      const cells = await row.locator('td').allInnerTexts();
      console.log(`[e2e] heap compare: ${head.join(' | ')} / ${cells.join(' | ')}`);
      // 5 000 rows kept, then 40 000: some 20 MB more.
      const m = /^\+([\d.]+) MB$/.exec(cells[5].trim());
      assert.ok(m && Number(m[1]) > 10, `keepRows grew by MBs: ${cells[5]}`);
      await vs.screenshot('heap-compare');
      failed = false;
    } finally {
      await vs.close({ failed });
      rmSync(ws, { recursive: true, force: true });
    }
  },
);

test(
  'Profile Running Process… with nodeFlame.attach.profile = heap: a heap profile of the live process, in bytes',
  { timeout: 300_000 },
  async () => {
    const ws = mkdtempSync(join(tmpdir(), 'nf-e2e-heapattach-'));
    mkdirSync(join(ws, '.vscode'), { recursive: true });
    writeFileSync(join(ws, '.vscode', 'settings.json'), JSON.stringify({ 'nodeFlame.attach.profile': 'heap' }));
    writeFileSync(
      join(ws, 'busy.js'),
      `const kept = [];
function keepRows() { for (let i = 0; i < 200; i++) kept.push(new Array(64).fill(i)); }
function makeGarbage() { let s = 0; for (let i = 0; i < 2000; i++) s += new Array(64).fill(i).length; return s; }
setInterval(() => { keepRows(); makeGarbage(); }, 5);
`,
    );
    const inspectPort = await freePort();
    const app = spawnGroup(process.execPath, [`--inspect=127.0.0.1:${inspectPort}`, 'busy.js'], { cwd: ws, stdio: 'ignore' });
    const vs = await startVSCode({ workspace: ws, name: 'heap-attach' });
    let failed = true;
    try {
      await vs.waitForCommand('Node Flame: Profile Running Process…');
      await vs.runCommand('Node Flame: Profile Running Process…');
      await vs.quickPickWait();
      await vs.quickPickType(`127.0.0.1:${inspectPort}`);
      await vs.quickPickSelect(new RegExp(`Connect to 127\\.0\\.0\\.1:${inspectPort}`));
      await vs.webviewFrame('#app[data-loading*="Node Flame: profiling"] .loading', 30_000);
      await new Promise((r) => setTimeout(r, 2000));
      // A heap attach is live: the waiting page gives way to the live graph within a second or two, so Stop is
      // pressed from the status bar, which both show.
      await vs.page.locator('.part.statusbar .statusbar-item', { hasText: 'Profiling (attached)… Stop' }).click();
      const frame = await vs.webviewFrame('body[data-live="false"] svg g.frame', 60_000);
      // The process ran long enough for TurboFan to inline the timer callback into listOnTimeout, and V8's
      // sampling heap profiler then names only the outer function: the heap mode of a launched run turns
      // inlining off, an attached process keeps the code it has.
      const names = await eventually(
        () => frame.$$eval('[data-tree="top"] g.frame', (gs) => gs.map((g) => g.getAttribute('name') ?? '')),
        (ns) =>
          assert.ok(
            ns.some((n) => /makeGarbage|listOnTimeout/.test(n)),
            ns.join(' | '),
          ),
      );
      console.log(`[e2e] heap attach frames: ${names.join(' | ')}`);
      await frame
        .locator('[data-tree="top"] g.frame[name*="listOnTimeout"], [data-tree="top"] g.frame[name*="makeGarbage"]')
        .first()
        .hover();
      const tip = await eventually(
        () => frame.locator('.tooltip').innerText(),
        (t) => assert.match(t, /\d+(\.\d)? (kB|MB)/),
      );
      console.log(`[e2e] heap attach tooltip: ${tip.replace(/\s+/g, ' ')}`);
      const run = readdirSync(join(ws, '.nodeflame')).find((d) => /-attach$/.test(d))!;
      assert.ok(existsSync(join(ws, '.nodeflame', run, 'profile.heapprofile')));
      await vs.screenshot('heap-attach');
      failed = false;
    } finally {
      await vs.close({ failed });
      if (app.pid) await killTree(app.pid);
      rmSync(ws, { recursive: true, force: true });
    }
  },
);
