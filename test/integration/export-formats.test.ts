// Exports people share, checked the way they are used: a .cpuprofile from a real --prof log imports
// back with the same hot functions, speedscope carries its schema, and the HTML page runs offline.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { loadProfile } from '../../src/core/importers';
import { functionStats, type Profile } from '../../src/core/model';
import { cli } from '../helpers/paths';

const PROGRAM = `
const crypto = require('crypto');
function hashLoop() { for (let i = 0; i < 40; i++) crypto.pbkdf2Sync('secret', 'salt', 2000, 64, 'sha512'); }
function sortLoop() { const a = []; for (let i = 0; i < 60000; i++) a.push(Math.random()); a.sort((x, y) => x - y); }
function main() { const end = Date.now() + 1500; while (Date.now() < end) { hashLoop(); sortLoop(); } }
main();
`;

const HOSTILE = ['<img src=x onerror=alert(1)>', '</script><script>alert(1)</script>'];

/** Self shares of the heaviest functions by name (idle and program roots left out). */
function topShares(p: Profile, n: number): Map<string, number> {
  const all = p.tree.weight;
  const byName = new Map<string, number>();
  for (const s of functionStats(p.tree, p.frames.length)) {
    const f = p.frames[s.frame];
    if (f.category === 'idle' || f.category === 'program') continue;
    byName.set(f.name, (byName.get(f.name) ?? 0) + s.self / all);
  }
  return new Map([...byName].sort((a, b) => b[1] - a[1]).slice(0, n));
}

function report(file: string, format: string, out: string): void {
  const r = spawnSync(process.execPath, [cli, 'report', file, '--format', format, '-o', out], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
}

test('exports: .cpuprofile from a --prof log re-imports with the same top functions; speedscope has $schema; HTML runs offline in Chromium', { timeout: 180_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'nf-export-'));
  let browser: Browser | undefined;
  try {
    writeFileSync(join(dir, 'prog.js'), PROGRAM);
    const run = spawnSync(process.execPath, ['--prof', 'prog.js'], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
    assert.equal(run.status, 0, run.stderr);
    const log = join(dir, readdirSync(dir).find((f) => /^isolate-.*-v8\.log$/.test(f))!);
    const original = await loadProfile(log);

    // .cpuprofile round trip.
    const cpu = join(dir, 'out.cpuprofile');
    report(log, 'cpuprofile', cpu);
    const again = await loadProfile(cpu);
    assert.equal(again.format, 'cpuprofile');
    const a = topShares(original, 5);
    const b = topShares(again, 8);
    console.log(`[export] --prof top: ${[...a].map(([k, v]) => `${k} ${(v * 100).toFixed(1)}%`).join(', ')}`);
    console.log(`[export] re-imported: ${[...b].slice(0, 5).map(([k, v]) => `${k} ${(v * 100).toFixed(1)}%`).join(', ')}`);
    assert.equal([...b.keys()][0], [...a.keys()][0], 'the same hottest function');
    for (const [name, share] of a) {
      assert.ok(b.has(name), `${name} is among the re-imported top functions`);
      assert.ok(Math.abs(b.get(name)! - share) < 0.01, `${name}: ${share} vs ${b.get(name)}`);
    }
    assert.ok(Math.abs(again.tree.weight - original.tree.weight) <= 1, 'same number of samples');

    // speedscope's file format names its schema.
    const ss = join(dir, 'out.speedscope.json');
    report(log, 'speedscope', ss);
    const doc = JSON.parse(readFileSync(ss, 'utf8')) as { $schema: string; shared: { frames: { name: string }[] }; profiles: { weights: number[] }[] };
    assert.equal(doc.$schema, 'https://www.speedscope.app/file-format-schema.json');
    assert.ok(doc.shared.frames.some((f) => f.name === [...a.keys()][0]));
    assert.equal(doc.profiles.reduce((s, p) => s + p.weights.reduce((x, y) => x + y, 0), 0), original.tree.weight);

    // The HTML viewer, from the --prof log and from a folded file with hostile names.
    const page1 = join(dir, 'prof.html');
    report(log, 'html', page1);
    const folded = join(dir, 'hostile.folded');
    writeFileSync(folded, `main;${HOSTILE[0]} 30\nmain;${HOSTILE[1]};leaf 20\nmain;other 10\n`);
    const page2 = join(dir, 'hostile.html');
    report(folded, 'html', page2);
    const html = readFileSync(page2, 'utf8');
    assert.match(html, /http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-[^']+'/);
    assert.equal(html.split('</script>').length - 1, 2, 'only the two script elements close: the data cannot');
    console.log(`[export] html: ${(readFileSync(page1).length / 1024).toFixed(0)} KiB for ${original.tree.count} nodes`);

    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    for (const file of [page1, page2]) {
      const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
      const url = `file://${file}`;
      const attempted: string[] = [];
      const dialogs: string[] = [];
      const problems: string[] = [];
      page.on('dialog', (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      page.on('pageerror', (e) => problems.push(String(e)));
      page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
      await page.route('**', (r) => {
        if (r.request().url() === url) return r.continue();
        attempted.push(r.request().url());
        return r.abort();
      });
      await page.goto(url);
      const frames = page.locator('[data-tree="top"] g.frame');
      await frames.first().waitFor({ state: 'attached', timeout: 30_000 });
      assert.ok((await frames.count()) >= 4, 'the flame graph has frames');
      if (file === page1) {
        const names = await frames.evaluateAll((gs) => gs.map((g) => g.getAttribute('name')));
        assert.ok(names.includes([...a.keys()][0]), `the hottest function is drawn (${[...a.keys()][0]})`);
        // The bottom-up tree is computed in the page from the embedded profile.
        await page.evaluate(() => {
          const sel = document.querySelector('vscode-single-select.tree-select') as HTMLElement & { value: string };
          sel.value = 'bottom';
          sel.dispatchEvent(new Event('change'));
        });
        await page.locator('[data-tree="bottom"] g.frame').first().waitFor({ state: 'attached', timeout: 10_000 });
      } else {
        for (const name of HOSTILE) {
          const g = page.locator('[data-tree="top"] g.frame').filter({ has: page.locator(`xpath=self::*[@name=${JSON.stringify(name)}]`) });
          assert.equal(await g.count(), 1, `${name} is drawn`);
          await g.click();
          assert.equal(await page.locator('.details .title').innerText(), name, 'shown as text');
          // No editor to open: the details say where the code would be.
          await page.locator('.details .no-source').waitFor({ timeout: 5_000 });
          await page.click('vscode-button[icon="home"]');
        }
        assert.equal(await page.locator('img').count(), 0, 'no element was made from a name');
        assert.equal(await page.locator('body script').count(), 2, 'no script element was made from a name');
      }
      await page.waitForTimeout(300);
      assert.deepEqual(attempted, [], 'no request besides the page itself');
      assert.deepEqual(dialogs, [], 'no script from the profile ran');
      assert.deepEqual(problems, [], 'no errors or CSP violations');
      await page.close();
    }
  } finally {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
