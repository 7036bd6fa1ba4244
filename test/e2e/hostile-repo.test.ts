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
import { typingLags } from './helpers/typing';
import { bigRunJson } from '../helpers/hostile';

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

/** CPU seconds the extension host's main thread (not its workers) has used so far. */
function mainThreadCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
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
    const big = bigRunJson(16 * 2 ** 20, { version: 1, mode: 'prof', profiles: [log] });
    for (let i = 0; i < 20; i++) {
      const dir = join(ws, '.nodeflame', `20260102-1200${String(i).padStart(2, '0')}-prof`);
      mkdirSync(dir);
      writeFileSync(join(dir, 'run.json'), big);
      execFileSync('cp', [join(run, log), join(dir, log)]);
    }
    // A profile whose hot frame's file lies outside the workspace (as /etc/passwd would).
    const secret = join(outside, 'secret.js');
    writeFileSync(secret, 'the secret\n');
    const frameNode = (id: number, name: string, url: string) => ({
      id,
      callFrame: { functionName: name, scriptId: String(id), url, lineNumber: 0, columnNumber: 0 },
      hitCount: id === 1 ? 0 : 100,
      ...(id === 1 ? { children: [2] } : {}),
    });
    writeFileSync(
      join(ws, 'outside-frame.cpuprofile'),
      JSON.stringify({
        nodes: [frameNode(1, '(root)', ''), frameNode(2, 'secretFn', `file://${secret}`)],
        startTime: 0,
        endTime: 100_000,
        samples: Array(100).fill(2),
        timeDeltas: Array(100).fill(1000),
      }),
    );
    const outsideBefore = snapshot(outside);
    const wsBefore = snapshot(join(ws, '.nodeflame'));
    console.log(`[e2e] repo: ${SPRAYED_PIDS} sprayed symlinks, 20 × ${(big.length / 2 ** 20).toFixed(1)} MB run.json`);

    const vs = await startVSCode({ workspace: ws, name: 'hostile-repo', trusted: false });
    let failed = true;
    try {
      await vs.waitForCommand('Node Flame: Show Profile File in Flame Graph…');
      // The palette lists the manifest's commands before the extension host process is there: wait for it.
      let host = extensionHostPid(vs);
      for (let i = 0; i < 120 && !host; i++) {
        await new Promise((r) => setTimeout(r, 250));
        host = extensionHostPid(vs);
      }
      assert.ok(host, 'the extension host runs');
      const cpu0 = mainThreadCpuSeconds(host);
      const start = Date.now();
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
      const busy = mainThreadCpuSeconds(host) - cpu0;
      const spanS = (Date.now() - start) / 1000;
      const rss = Number(/^VmHWM:\s+(\d+)/m.exec(readFileSync(`/proc/${hostAfter}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
      console.log(
        `[e2e] after opening the sprayed run's profile and 20 s more: typing lag ${lags2.join(', ')} / ${lags3.join(', ')} ms; extension host pid ${host} → ${hostAfter}, peak RSS ${rss.toFixed(0)} MiB, main thread ${busy.toFixed(2)} CPU s of ${spanS.toFixed(0)} s`,
      );

      // A click on the frame whose file is outside the workspace asks first; No keeps it closed, and is not asked again.
      await vs.runCommand('Node Flame: Show Profile File in Flame Graph…');
      await vs.quickInputAnswer(join(ws, 'outside-frame.cpuprofile'));
      const graph = await vs.webviewFrame('body[data-profile="outside-frame.cpuprofile"] svg g.frame', 60_000);
      const secretRect = graph.locator('[data-tree="top"] g.frame[name^="secretFn"] rect').first();
      await secretRect.click({ force: true });
      const dialog = vs.page.locator('.monaco-dialog-box');
      await dialog.waitFor({ timeout: 10_000 });
      const asked = (await dialog.innerText()).replace(/\s+/g, ' ');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached', timeout: 5_000 });
      await secretRect.click({ force: true });
      await vs.page.waitForTimeout(1500);
      const askedAgain = await dialog.count();
      const secretTabs = await vs.page.locator('.tab', { hasText: 'secret.js' }).count();
      console.log(
        `[e2e] click on a frame in ${secret}: asked "${asked.slice(0, 160)}"; asked again on the second click: ${askedAgain}; tabs opened: ${secretTabs}`,
      );
      assert.match(asked, /Open .*secret\.js\?/);
      assert.equal(askedAgain, 0, 'asked once per file');
      assert.equal(secretTabs, 0, 'the file outside was not opened');

      assert.equal(texts.length, 21, 'every run listed');
      assert.equal(tooBig, 20, 'the 16 MB run.json files are not read');
      assert.equal(snapshot(outside), outsideBefore, 'nothing was written outside the workspace');
      assert.equal(snapshot(join(ws, '.nodeflame')), wsBefore, 'nothing was written into the run folders (Restricted Mode)');
      assert.equal(hostAfter, host, 'the same extension host runs (no crash, no restart)');
      // Two cores shared with other work: one word of 15 may catch a spike of the machine (seen once: 223 ms
      // among 14 under 100 ms); a blocked host delays every word, by seconds.
      const lags = [...lags1, ...lags2, ...lags3].sort((a, b) => a - b);
      assert.ok(lags[lags.length - 2] <= 200 && lags[lags.length - 1] <= 500, `typing showed within ${lags.join(', ')} ms`);
      assert.ok(busy < 0.3 * spanS, `the host's main thread was busy ${busy.toFixed(2)} CPU s of ${spanS.toFixed(0)} s`);
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
