// A cloned repository opened in Restricted Mode ships a `.nodeflame/` built to hurt: a run folder sprayed with
// symlinks at every `run.json.<pid>.tmp` (and at run.json's neighbours) pointing outside the workspace, and 20
// run folders whose run.json is 16 MB each. Showing the history view and opening the run's profile must write
// nothing anywhere, and the extension host must stay up and quick (typing shows within 200 ms).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startVSCode, type VSCode } from './helpers';
import { processTree } from './helpers/processes';

const SPRAYED_PIDS = Math.min(32768, Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8')));

function extensionHostPid(vs: VSCode): number | undefined {
  return processTree(vs.serverPid!).find((p) => {
    try {
      return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('--type=extensionHost');
    } catch {
      return false;
    }
  });
}

/** Every name under `dir` with its kind, size and link target. */
function snapshot(dir: string): string {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .sort()
    .map((n) => {
      const st = lstatSync(join(dir, n));
      return `${n}:${st.isSymbolicLink() ? `->${readlinkSync(join(dir, n))}` : st.isDirectory() ? 'dir' : `${st.size}:${st.mtimeMs}`}`;
    })
    .join('\n');
}

/** Types five words into the focused editor; the time each took to show (ms). */
async function typingLags(vs: VSCode, tag: string): Promise<number[]> {
  const lags: number[] = [];
  for (let k = 0; k < 5; k++) {
    const word = `${tag}${k}x`;
    await vs.page.keyboard.type(word);
    const t = Date.now();
    await vs.page.waitForFunction(
      (w) => document.querySelector('.part.editor .editor-instance .view-lines')?.textContent?.includes(w),
      word,
      { timeout: 10_000, polling: 10 },
    );
    lags.push(Date.now() - t);
    await vs.page.waitForTimeout(300);
  }
  return lags;
}

test(
  'Restricted Mode: a symlink-sprayed run folder and 20 × 16 MB run.json: nothing written, the host stays quick',
  { timeout: 900_000 },
  async () => {
    const ws = mkdtempSync(join(tmpdir(), 'nf-e2e-hostile-repo-'));
    const outside = mkdtempSync(join(tmpdir(), 'nf-e2e-outside-'));
    writeFileSync(join(outside, 'target'), 'original\n');
    writeFileSync(join(ws, 'notes.txt'), '\n');
    // A real --prof log of a small program, made now.
    writeFileSync(
      join(ws, 'busy.js'),
      'function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\nconst e = Date.now() + 400; while (Date.now() < e) fib(18);\n',
    );
    const run = join(ws, '.nodeflame', '20260101-120000-prof');
    mkdirSync(run, { recursive: true });
    execFileSync(process.execPath, ['--prof', `--logfile=${join(run, 'v8.log')}`, 'busy.js'], { cwd: ws });
    const log = readdirSync(run).find((n) => n.endsWith('-v8.log'))!;
    writeFileSync(
      join(run, 'run.json'),
      JSON.stringify({ version: 1, mode: 'prof', command: ['node', 'busy.js'], durationMs: 400, profiles: [log] }),
    );
    for (let pid = 1; pid <= SPRAYED_PIDS; pid++)
      symlinkSync(pid % 2 ? join(outside, 'target') : join(outside, `new-${pid}`), join(run, `run.json.${pid}.tmp`));
    symlinkSync(join(outside, 'gitignore'), join(ws, '.nodeflame', '.gitignore'));
    // 20 runs with a 16 MB run.json (a long list of processes) and a small profile each.
    const proc = JSON.stringify({
      pid: 1,
      ppid: 0,
      command: ['node', 'x'.repeat(200)],
      exitCode: 0,
      startedAt: '2026-01-01T00:00:00Z',
      profiles: [],
    });
    const big = `{"version":1,"mode":"prof","profiles":["${log}"],"processes":[${Array.from({ length: Math.floor((16 * 2 ** 20) / (proc.length + 1)) }, () => proc).join(',')}]}`;
    for (let i = 0; i < 20; i++) {
      const dir = join(ws, '.nodeflame', `20260102-1200${String(i).padStart(2, '0')}-prof`);
      mkdirSync(dir);
      writeFileSync(join(dir, 'run.json'), big);
      execFileSync('cp', [join(run, log), join(dir, log)]);
    }
    const outsideBefore = snapshot(outside);
    const wsBefore = snapshot(join(ws, '.nodeflame'));
    console.log(`[e2e] repo: ${SPRAYED_PIDS} sprayed symlinks, 20 × ${(big.length / 2 ** 20).toFixed(1)} MB run.json`);

    const vs = await startVSCode({ workspace: ws, name: 'hostile-repo', trusted: false });
    let failed = true;
    try {
      await vs.waitForCommand('Node Flame: Show Profile File in Flame Graph…');
      const host = extensionHostPid(vs);
      assert.ok(host, 'the extension host runs');
      // The history view shows (it lists every run folder), then an editor is typed into at once.
      await vs.page.locator('.part.activitybar [aria-label^="Node Flame"]').first().click();
      const t0 = Date.now();
      await vs.openFile('notes.txt');
      await vs.page.locator('.part.editor .editor-instance .view-lines').first().click();
      const lags1 = await typingLags(vs, 'a');
      const rows = vs.page.locator('.part.sidebar .monaco-list-row').filter({ hasText: '2026' });
      await rows.nth(20).waitFor({ timeout: 60_000 });
      const listedMs = Date.now() - t0;
      const texts = (await rows.allInnerTexts()).map((t) => t.replace(/\s+/g, ' '));
      const tooBig = texts.filter((t) => /run\.json not read/.test(t)).length;
      console.log(
        `[e2e] history: ${texts.length} runs listed within ${listedMs} ms, ${tooBig} marked "run.json not read"; typing lag ${lags1.join(', ')} ms`,
      );

      // The sprayed run's profile, by the default custom editor (which caches a summary when trusted).
      await vs.openFile(`.nodeflame/20260101-120000-prof/${log}`);
      const frame = await vs.webviewFrame(`body[data-profile="${log}"] svg g.frame`, 120_000);
      assert.ok((await frame.locator('svg g.frame').count()) > 3, 'the profile is drawn');
      await vs.page.waitForTimeout(3000);
      await vs.openFile('notes.txt');
      await vs.page.locator('.part.editor .editor-instance .view-lines').first().click();
      const lags2 = await typingLags(vs, 'b');
      // The 16 MB runs stay listed a while longer (the old code's crash came ~98 s after the view showed).
      await vs.page.waitForTimeout(20_000);
      const lags3 = await typingLags(vs, 'c');
      const hostAfter = extensionHostPid(vs);
      const rss = Number(/^VmHWM:\s+(\d+)/m.exec(readFileSync(`/proc/${hostAfter}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
      console.log(
        `[e2e] after opening the sprayed run's profile and 20 s more: typing lag ${lags2.join(', ')} / ${lags3.join(', ')} ms; extension host pid ${host} → ${hostAfter}, peak RSS ${rss.toFixed(0)} MiB`,
      );

      assert.equal(texts.length, 21, 'every run listed');
      assert.equal(tooBig, 20, 'the 16 MB run.json files are not read');
      assert.ok(Math.max(...lags1, ...lags2, ...lags3) <= 200, `typing showed within ${Math.max(...lags1, ...lags2, ...lags3)} ms`);
      assert.equal(hostAfter, host, 'the same extension host runs (no crash, no restart)');
      assert.equal(snapshot(outside), outsideBefore, 'nothing was written outside the workspace');
      assert.equal(snapshot(join(ws, '.nodeflame')), wsBefore, 'nothing was written into the run folders (Restricted Mode)');
      failed = false;
    } finally {
      await vs.close({ failed });
      if (!failed) {
        rmSync(ws, { recursive: true, force: true });
        rmSync(outside, { recursive: true, force: true });
      }
    }
  },
);
