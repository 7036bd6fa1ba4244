// Findings in a real VS Code: after "Profile Node App" on the guide's Express app (--prof, under load), the
// Problems panel lists the pbkdf2Sync finding at its line, a click opens that line, and Clear Hot Spots clears it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { startVSCode, repoRoot } from './helpers';
import { freePort } from './helpers/processes';

const PROFILE = 'Node Flame: Profile Node App';
const FINDING = /crypto\.pbkdf2Sync blocks the event loop/;

/** Polls `read` until `ok` holds for its value; returns that value. */
async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let v = await read();
  while (!ok(v)) {
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(v)} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
    v = await read();
  }
  return v;
}

function problemRows(page: Page): Locator {
  return page.locator('.markers-panel .monaco-list-row');
}

async function problemTexts(page: Page): Promise<string[]> {
  return (await problemRows(page).allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
}

test(
  'Profile Node App on the guide app: the Problems panel lists the pbkdf2Sync finding at its line; a click opens it; Clear Hot Spots clears it',
  { timeout: 600_000 },
  async () => {
    const ws = mkdtempSync(join(tmpdir(), 'nf-e2e-findings-'));
    copyFileSync(join(repoRoot, 'examples/express-auth/app.js'), join(ws, 'app.js'));
    const lines = readFileSync(join(ws, 'app.js'), 'utf8').split('\n');
    const auth = lines.findIndex((l) => l.includes("app.get('/auth'"));
    const callLine = lines.findIndex((l, i) => i > auth && l.includes('crypto.pbkdf2Sync(')) + 1;
    const autocannon = join(repoRoot, 'node_modules/autocannon/autocannon.js');
    mkdirSync(join(ws, '.vscode'), { recursive: true });
    writeFileSync(
      join(ws, '.vscode', 'settings.json'),
      JSON.stringify({
        'nodeFlame.program': 'app.js',
        'nodeFlame.mode': 'prof',
        'nodeFlame.env': { PORT: String(await freePort()), NODE_PATH: join(repoRoot, 'node_modules') },
        'nodeFlame.loadCommand': `curl -s "http://localhost:$PORT/newUser?username=matt&password=password" >/dev/null && node "${autocannon}" -a 40 -c 4 "http://localhost:$PORT/auth?username=matt&password=password"`,
      }),
    );
    const vs = await startVSCode({ workspace: ws, name: 'findings' });
    let failed = true;
    try {
      await vs.waitForCommand(PROFILE);
      await vs.runCommand(PROFILE);
      const root = join(ws, '.nodeflame');
      const run = await until(
        async () => (existsSync(root) ? readdirSync(root).find((n) => existsSync(join(root, n, 'run.json'))) : undefined),
        (n) => n !== undefined,
        'a finished run',
        180_000,
      );
      const info = JSON.parse(readFileSync(join(root, run!, 'run.json'), 'utf8')) as { profiles: string[] };
      assert.ok(info.profiles.length > 0, 'the run wrote a profile');
      // The view painted after the run ended: a live view taken early holds no finding yet.
      const page = await vs.webviewFrame(
        `body[data-profile="${run}"][data-first-paint-ms]:is([data-final-paint-ms], :not([data-live])) svg g.frame`,
        120_000,
      );

      // The viewer's Summary lists the finding; choosing it selects pbkdf2Sync in the flame graph.
      await page.locator('vscode-tab-header[data-tab="summary"]').click();
      const entry = page.locator('ul.findings li.finding[data-rule="blocking-sync"]').first();
      await entry.waitFor({ timeout: 30_000 });
      assert.match(await entry.innerText(), FINDING);
      assert.match(await entry.innerText(), new RegExp(`app\\.js:${callLine}`));
      await entry.click();
      const selected = await until(
        () => page.$$eval('[data-tree="top"] g.frame.selected', (gs) => gs.map((g) => g.getAttribute('name') ?? '')),
        (names) => names.some((n) => n.includes('pbkdf2Sync')),
        'pbkdf2Sync selected in the flame graph',
      );
      console.log(`[e2e] Summary finding selects: ${selected.join(' | ')}`);
      await vs.screenshot('findings-summary-reveal');

      await vs.runCommand('Problems: Focus on Problems View');
      const texts = await until(
        () => problemTexts(vs.page),
        (t) => t.some((x) => FINDING.test(x)),
        'the pbkdf2Sync finding in the Problems panel',
        60_000,
      );
      const row = texts.find((x) => FINDING.test(x))!;
      console.log(`[e2e] Problems: ${row}`);
      assert.match(row, /Node Flame/);
      assert.match(row, new RegExp(`Ln ${callLine}\\b`), `at the pbkdf2Sync line ${callLine}: ${row}`);
      assert.match(row, /asynchronous crypto\.pbkdf2 /);
      await vs.screenshot('findings-problems');

      await problemRows(vs.page).filter({ hasText: FINDING }).first().click();
      await until(
        () => vs.activeEditor(),
        (e) => e?.file === 'app.js' && e.line === callLine,
        `app.js open at line ${callLine}`,
      );
      await vs.screenshot('findings-opened');

      await vs.runCommand('Node Flame: Clear Hot Spots');
      await until(
        () => problemTexts(vs.page),
        (t) => !t.some((x) => FINDING.test(x)),
        'the finding cleared with the hot spots',
      );
      failed = false;
    } finally {
      await vs.close({ failed });
      rmSync(ws, { recursive: true, force: true });
    }
  },
);
