// Heap mode in a real VS Code: "Profile Node App" with nodeFlame.mode = heap on the keep/garbage fixture;
// the flame graph draws both functions, and the CodeLens over them speaks allocated bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { eventually, startVSCode, repoRoot } from './helpers';

const PROFILE = 'Node Flame: Profile Node App';
const APP = 'keep-and-garbage.js';
const LENS = /🔥 (\d+\.\d)% of allocated bytes · ([\d.,]+) (kB|MB|GB) · (\d+\.\d)% self/;

test('heap mode: Profile Node App draws the keeping and the garbage-making function, CodeLens in bytes', { timeout: 300_000 }, async () => {
  const ws = mkdtempSync(join(tmpdir(), 'nf-e2e-heap-'));
  copyFileSync(join(repoRoot, 'test/fixtures/heap', APP), join(ws, APP));
  mkdirSync(join(ws, '.vscode'), { recursive: true });
  writeFileSync(join(ws, '.vscode', 'settings.json'), JSON.stringify({ 'nodeFlame.program': APP, 'nodeFlame.args': ['20'], 'nodeFlame.mode': 'heap' }));
  const vs = await startVSCode({ workspace: ws, name: 'heap' });
  let failed = true;
  try {
    await vs.waitForCommand(PROFILE);
    await vs.runCommand(PROFILE);
    const root = join(ws, '.nodeflame');
    const info = await eventually(
      async () => {
        const run = existsSync(root) ? readdirSync(root).find((n) => n.endsWith('-heap') && existsSync(join(root, n, 'run.json'))) : undefined;
        return run ? (JSON.parse(readFileSync(join(root, run, 'run.json'), 'utf8')) as { mode: string; profiles: string[] }) : undefined;
      },
      (i) => assert.ok(i, 'a finished heap run'),
      120_000,
    );
    assert.equal(info!.mode, 'heap');
    const main = info!.profiles[0];
    assert.match(main, /\.heapprofile$/);
    const frame = await vs.webviewFrame(`body[data-profile="${basename(main)}"][data-first-paint-ms] svg g.frame`, 120_000);
    const names = await eventually(
      () => frame.$$eval('[data-tree="top"] g.frame', (gs) => gs.map((g) => g.getAttribute('name') ?? '')),
      (ns) => assert.ok(ns.some((n) => n.includes('makeGarbage')) && ns.some((n) => n.includes('keepRows')), `both functions drawn: ${ns.filter((n) => n.includes(APP)).join(' | ')}`),
    );
    console.log(`[e2e] heap: ${names.filter((n) => n.includes(APP)).join(' | ')}`);
    // The details of a frame say bytes.
    await frame.locator('[data-tree="top"] g.frame[name*="makeGarbage"]').first().hover();
    await eventually(() => frame.locator('.tooltip').innerText(), (t) => assert.match(t, /\d+(\.\d)? (kB|MB|GB)/));
    await vs.screenshot('heap-flame');

    await vs.openFile(APP);
    const lenses = await eventually(
      () =>
        vs.page.$$eval('.part.editor .editor-group-container.active .codelens-decoration', (els) => els.map((el) => (el as HTMLElement).innerText.replace(/\u00a0/g, ' '))),
      (ls) => assert.ok(ls.filter((l) => LENS.test(l)).length >= 2, `lenses: ${JSON.stringify(ls)}`),
      60_000,
    );
    console.log(`[e2e] heap CodeLens: ${lenses.join(' | ')}`);
    const shares = lenses.map((l) => LENS.exec(l)).filter((m) => m).map((m) => Number(m![1]));
    // makeGarbage allocates ten rows for each one keepRows keeps.
    assert.ok(Math.max(...shares) > 70, `the garbage maker holds most allocated bytes: ${lenses.join(' | ')}`);
    await vs.screenshot('heap-codelens');
    failed = false;
  } finally {
    await vs.close({ failed });
    rmSync(ws, { recursive: true, force: true });
  }
});
