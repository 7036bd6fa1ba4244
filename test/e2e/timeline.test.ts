// The Timeline in a real VS Code: a --cpu-prof run idle at first, then hot in one function, then in another.
// Dragging over the second hot stretch leaves the flame graph with only that one; Esc brings back the whole.
// Then a synthetic 1,000,000-sample profile for the figures (draw, pan/zoom frame, range change).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Frame } from 'playwright-core';
import { dragOnGraph, startVSCode, repoRoot, type VSCode } from './helpers';
import { freePort } from '../helpers/net';

const SHOW = 'Node Flame: Show Profile File in Flame Graph…';

/** Names and values of the drawn top-down flame graph. */
function drawn(frame: Frame) {
  return frame.evaluate(() => {
    type Drawn = { name: string; value: number };
    const gs = [...document.querySelectorAll('[data-tree="top"] g.frame')] as (Element & { __data__?: { parent: unknown; data: Drawn } })[];
    const root = gs.find((g) => g.__data__ && !g.__data__.parent)?.__data__?.data;
    const value = (name: string) => Math.max(0, ...gs.filter((g) => g.__data__?.data.name === name).map((g) => g.__data__!.data.value));
    return {
      root: root?.value ?? 0,
      first: value('firstHot'),
      second: value('secondHot'),
      names: gs.map((g) => g.__data__?.data.name ?? ''),
    };
  });
}

/** Shows a tab of the viewer (a click event: VS Code's hover cards over the page would catch a real one). */
function tab(frame: Frame, id: string): Promise<void> {
  return frame.locator(`vscode-tab-header[data-tab="${id}"]`).dispatchEvent('click');
}

async function until<T>(what: string, get: () => Promise<T>, ok: (v: T) => boolean, tries = 80): Promise<T> {
  let v = await get();
  for (let i = 0; i < tries && !ok(v); i++) {
    await new Promise((r) => setTimeout(r, 250));
    v = await get();
  }
  assert.ok(ok(v), `${what}: ${JSON.stringify(v).slice(0, 400)}`);
  return v;
}

/** When a function's samples start and end, in ms from the profile's first sample, read from the file. */
function stretchOf(file: string, name: string): { from: number; to: number } {
  const p = JSON.parse(readFileSync(file, 'utf8')) as {
    nodes: { id: number; callFrame: { functionName: string } }[];
    samples: number[];
    timeDeltas: number[];
  };
  const ids = new Set(p.nodes.filter((n) => n.callFrame.functionName === name).map((n) => n.id));
  let t = 0;
  let from = Infinity;
  let to = 0;
  p.samples.forEach((s, i) => {
    // As the importer counts: from the profile's startTime, the first delta included.
    t += p.timeDeltas[i];
    if (ids.has(s)) {
      from = Math.min(from, t / 1000);
      to = t / 1000;
    }
  });
  return { from, to };
}

/** A synthetic .cpuprofile of `n` samples 1 ms apart over a few dozen stacks that change every ~50 ms. */
function bigProfile(n: number): string {
  const nodes: object[] = [
    {
      id: 1,
      callFrame: { functionName: '(root)', scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 },
      hitCount: 0,
      children: [] as number[],
    },
  ];
  const leaves: number[] = [];
  let id = 2;
  for (let a = 0; a < 8; a++) {
    const top = id++;
    (nodes[0] as { children: number[] }).children.push(top);
    const kids: number[] = [];
    nodes.push({
      id: top,
      callFrame: { functionName: `phase${a}`, scriptId: '1', url: 'file:///app/big.js', lineNumber: a * 10, columnNumber: 0 },
      hitCount: 0,
      children: kids,
    });
    for (let b = 0; b < 6; b++) {
      kids.push(id);
      leaves.push(id);
      nodes.push({
        id: id++,
        callFrame: {
          functionName: `work${a}_${b}`,
          scriptId: '1',
          url: 'file:///app/big.js',
          lineNumber: 100 + a * 10 + b,
          columnNumber: 0,
        },
        hitCount: 0,
      });
    }
  }
  const samples = new Array<number>(n);
  for (let i = 0; i < n; i++) samples[i] = leaves[(Math.floor(i / 50) * 7 + (i % 3)) % leaves.length];
  return JSON.stringify({ nodes, startTime: 0, endTime: n * 1000, samples, timeDeltas: new Array(n).fill(1000) });
}

test('the Timeline: idle, then two hot stretches; a dragged range filters the flame graph; 1 M samples', { timeout: 900_000 }, async () => {
  const ws = mkdtempSync(join(tmpdir(), 'nf-e2e-timeline-'));
  execFileSync(process.execPath, [
    '--cpu-prof',
    '--cpu-prof-interval',
    '1000',
    '--cpu-prof-dir',
    ws,
    '--cpu-prof-name',
    'phases.cpuprofile',
    join(repoRoot, 'test/fixtures/timeline/phases.js'),
    '600',
    '700',
  ]);
  const file = join(ws, 'phases.cpuprofile');
  const second = stretchOf(file, 'secondHot');
  const first = stretchOf(file, 'firstHot');
  const big = join(ws, 'big.cpuprofile');
  writeFileSync(big, bigProfile(1_000_000));
  const vs: VSCode = await startVSCode({ workspace: ws, name: 'timeline', viewport: { width: 1400, height: 900 } });
  let failed = true;
  try {
    await vs.waitForCommand(SHOW);
    await vs.runCommand(SHOW);
    await vs.quickInputAnswer(file);
    const frame = await vs.webviewFrame('body[data-profile="phases.cpuprofile"][data-first-paint-ms] svg g.frame', 120_000);
    const whole = await drawn(frame);
    assert.ok(whole.first > 0 && whole.second > 0, 'both hot functions in the whole profile');

    await tab(frame, 'timeline');
    const tl = frame.locator('.timeline-tab');
    await until(
      'the timeline is drawn',
      () => tl.getAttribute('data-boxes'),
      (b) => Number(b) > 0,
    );
    const windowText = (await tl.getAttribute('data-window'))!;
    const spanEnd = Number(windowText.split('-')[1]);
    console.log(
      `[e2e] timeline of phases.cpuprofile: span ${spanEnd} ms, secondHot ${second.from.toFixed(0)}–${second.to.toFixed(0)} ms, host ${await tl.getAttribute('data-host-ms')} ms, draw ${await tl.getAttribute('data-draw-ms')} ms`,
    );
    // The idle stretch is there: the activity graph's first quarter is drawn in the idle colour only (checked on the host's data by the unit test); here the graph is drawn.
    const graph = await frame.locator('.tl-graph').boundingBox();
    assert.ok(graph && graph.width > 200, 'the activity graph has a size');
    const page = vs.page;
    await dragOnGraph(page, graph!, spanEnd, second.from + 20, second.to + 20);
    await until(
      'the range chip',
      () => frame.locator('.timeline-tab .xf-chip').allInnerTexts(),
      (c) => c.length === 1 && /^Time: /.test(c[0]),
    );

    await tab(frame, 'flame');
    const t0 = Date.now();
    const ranged = await until(
      'only secondHot in the flame graph',
      () => drawn(frame),
      (d) => d.first === 0 && d.second > 0.9 * d.root,
    );
    console.log(
      `[e2e] range ${JSON.stringify(await tl.getAttribute('data-range'))}: secondHot ${((100 * ranged.second) / ranged.root).toFixed(1)} % of ${ranged.root} samples, firstHot absent (flame graph after ${Date.now() - t0} ms)`,
    );
    await vs.screenshot('timeline-range');

    // Esc on the Timeline clears the range: the whole profile again.
    await tab(frame, 'timeline');
    await frame.locator('.tl-chart-box').focus();
    await page.keyboard.press('Escape');
    await until(
      'the chip is gone',
      () => frame.locator('.timeline-tab .xf-chip').count(),
      (n) => n === 0,
    );
    await tab(frame, 'flame');
    await until(
      'the whole profile again',
      () => drawn(frame),
      (d) => d.first > 0 && d.second > 0,
    );

    // Startup against the rest: select the first hot stretch and compare it with what follows.
    await tab(frame, 'timeline');
    await dragOnGraph(page, graph!, spanEnd, first.from + 5, first.to + 5);
    await until(
      'the compare button',
      () => frame.locator('.tl-compare').isEnabled(),
      (e) => e,
    );
    await frame.locator('.tl-compare').click();
    const diff = await vs.webviewFrame('body[data-mode="diff"][data-first-paint-ms] [data-tree="diff"] g.frame', 90_000);
    const rows = await until(
      'the comparison lists both functions',
      () =>
        diff
          .locator('.changes-table tbody tr')
          .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim() ?? ''))),
      (r) => ['firstHot', 'secondHot'].every((n) => r.some((c) => c[0] === n)),
    );
    const pctOf = (cell: string) => Number(/([\d.]+)%/.exec(cell)?.[1] ?? NaN);
    const f = rows.find((c) => c[0] === 'firstHot')!;
    const sh = rows.find((c) => c[0] === 'secondHot')!;
    console.log(
      `[e2e] compare ${first.from.toFixed(0)}–${first.to.toFixed(0)} ms with what follows: firstHot ${f[2]} → ${f[3]}, secondHot ${sh[2]} → ${sh[3]}`,
    );
    assert.ok(pctOf(f[2]) > 90 && pctOf(f[3]) < 10, f.join(' | '));
    assert.ok(pctOf(sh[2]) < 10 && pctOf(sh[3]) > 40, sh.join(' | '));

    // After a reload the comparison reopens as the same two ranges, not as the whole file twice.
    await vs.reloadWindow();
    const again = await vs.webviewFrame('body[data-mode="diff"][data-first-paint-ms] [data-tree="diff"] g.frame', 120_000);
    const reopened = await until(
      'the reopened comparison lists both functions',
      () =>
        again
          .locator('.changes-table tbody tr')
          .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim() ?? ''))),
      (r) => ['firstHot', 'secondHot'].every((n) => r.some((c) => c[0] === n)),
    );
    console.log(`[e2e] after a reload: ${reopened.find((c) => c[0] === 'firstHot')!.join(' | ')}`);
    assert.deepEqual(
      reopened.find((c) => c[0] === 'firstHot'),
      f,
      'firstHot: the same shares of the same two ranges',
    );
    assert.deepEqual(
      reopened.find((c) => c[0] === 'secondHot'),
      sh,
      'secondHot: the same shares of the same two ranges',
    );

    // 1,000,000 samples: first draw, a zoom frame, a pan frame, and a range change to a new flame graph.
    await vs.runCommand(SHOW);
    await vs.quickInputAnswer(big);
    const bigFrame = await vs.webviewFrame('body[data-profile="big.cpuprofile"][data-first-paint-ms] svg g.frame', 180_000);
    // The editor tab's hover card (its title) may cover the page: move away and let it go.
    await vs.page.mouse.move(700, 880);
    await vs.page.waitForTimeout(600);
    await tab(bigFrame, 'timeline');
    const btl = bigFrame.locator('.timeline-tab');
    await until(
      'the big timeline is drawn',
      () => btl.getAttribute('data-boxes'),
      (b) => Number(b) > 0,
      240,
    );
    const host = Number(await btl.getAttribute('data-host-ms'));
    const draw = Number(await btl.getAttribute('data-draw-ms'));
    const box = (await bigFrame.locator('.tl-chart-box').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + 20);
    const frames: number[] = [];
    for (let i = 0; i < 5; i++) {
      await page.mouse.wheel(0, -200);
      frames.push(Number(await btl.getAttribute('data-chart-ms')));
    }
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 - 200, box.y + 20, { steps: 5 });
    await page.mouse.up();
    frames.push(Number(await btl.getAttribute('data-chart-ms')));
    const bgraph = (await bigFrame.locator('.tl-graph').boundingBox())!;
    const before = await bigFrame.evaluate(() => document.querySelectorAll('[data-tree="top"] g.frame').length);
    const r0 = Date.now();
    await page.mouse.move(bgraph.x + bgraph.width * 0.1, bgraph.y + 30);
    await page.mouse.down();
    await page.mouse.move(bgraph.x + bgraph.width * 0.2, bgraph.y + 30, { steps: 3 });
    await page.mouse.up();
    await until(
      'the big range chip',
      () => bigFrame.locator('.timeline-tab .xf-chip').count(),
      (n) => n === 1,
    );
    // The flame graph is redrawn for the range: its root's value drops to about a tenth.
    const rootValue = () =>
      bigFrame.evaluate(() => {
        const gs = [...document.querySelectorAll('[data-tree="top"] g.frame')] as (Element & {
          __data__?: { parent: unknown; data: { value: number } };
        })[];
        return gs.find((g) => g.__data__ && !g.__data__.parent)?.__data__?.data.value ?? 0;
      });
    const ranged2 = await until('the big flame graph follows the range', rootValue, (v) => v > 50_000 && v < 150_000);
    const rangeMs = Date.now() - r0;
    const pageRange = Number(await bigFrame.locator('body').getAttribute('data-range-ms'));
    console.log(
      `[e2e] 1,000,000 samples: host ${host.toFixed(1)} ms, canvas draw ${draw.toFixed(1)} ms, zoom/pan frames ${frames.map((f) => f.toFixed(1)).join(' ')} ms (max ${Math.max(...frames).toFixed(1)}), range → flame graph root ${ranged2} samples: ${pageRange.toFixed(1)} ms from the drag's end to the flame graph drawn (${rangeMs} ms in the test, polling included; ${before} frames before)`,
    );
    assert.ok(pageRange > 0, 'the range figure was measured');
    assert.ok(Math.max(...frames) < 16, `pan/zoom frames under 16 ms: ${frames.join(', ')}`);
    failed = false;
  } finally {
    await vs.close({ failed });
  }
});

test(
  'the Timeline of a launched Express run: load markers, event-loop delay over 50 ms, a click selects the stall',
  { timeout: 600_000 },
  async () => {
    const ws = mkdtempSync(join(tmpdir(), 'nf-e2e-timeline-run-'));
    copyFileSync(join(repoRoot, 'examples/express-auth/app.js'), join(ws, 'app.js'));
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const autocannon = join(repoRoot, 'node_modules', 'autocannon', 'autocannon.js');
    const load = `curl -s "${base}/newUser?username=matt&password=password" >/dev/null; "${process.execPath}" "${autocannon}" -c 4 -d 3 "${base}/auth?username=matt&password=password"`;
    const out = join(ws, 'runs');
    execFileSync(
      process.execPath,
      [
        join(repoRoot, 'dist', 'cli.js'),
        'profile',
        '--mode',
        'cpu-prof',
        '--out',
        out,
        '--no-report',
        '--port',
        String(port),
        '--load',
        load,
        '--',
        'node',
        'app.js',
      ],
      {
        cwd: ws,
        env: { ...process.env, PORT: String(port), NODE_PATH: join(repoRoot, 'node_modules') },
        stdio: 'ignore',
      },
    );
    const dir = join(out, readdirSync(out)[0]);
    const file = join(dir, readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))!);
    const vs: VSCode = await startVSCode({ workspace: ws, name: 'timeline-run', viewport: { width: 1400, height: 900 } });
    let failed = true;
    try {
      await vs.waitForCommand(SHOW);
      await vs.runCommand(SHOW);
      await vs.quickInputAnswer(file);
      const label = file.split('/').pop()!;
      const frame = await vs.webviewFrame(`body[data-profile="${label}"][data-first-paint-ms] svg g.frame`, 120_000);
      await vs.page.mouse.move(700, 880);
      await tab(frame, 'timeline');
      const tl = frame.locator('.timeline-tab');
      const markers = await until(
        'the run markers',
        () => tl.getAttribute('data-markers'),
        (m) => !!m && ['port', 'loadStart', 'loadEnd', 'stop'].every((k) => m.split(' ').includes(k)),
      );
      const slow = JSON.parse(
        (await until(
          'a stall over 50 ms',
          () => tl.getAttribute('data-slow'),
          (x) => !!x && JSON.parse(x).length > 0,
        ))!,
      ) as [number, number][];
      const spanEnd = Number((await tl.getAttribute('data-window'))!.split('-')[1]);
      console.log(
        `[e2e] launched Express run: markers ${markers}; ${slow.length} stretches of event-loop delay over 50 ms, first ${slow[0][0]}–${slow[0][1]} ms of ${spanEnd.toFixed(0)} ms`,
      );
      await vs.screenshot('timeline-run');
      // A click on the highlighted stretch selects it.
      const tracks = (await frame.locator('.tl-tracks').boundingBox())!;
      const mid = (slow[0][0] + slow[0][1]) / 2;
      await vs.page.mouse.click(tracks.x + (mid / spanEnd) * tracks.width, tracks.y + 10);
      const range = await until(
        'the stall is the range',
        () => tl.getAttribute('data-range'),
        (r) => !!r && r !== 'null',
      );
      const r = JSON.parse(range!) as { from: number; to: number };
      assert.ok(Math.abs(r.from - slow[0][0]) < 2 && Math.abs(r.to - slow[0][1]) < 2, range!);
      failed = false;
    } finally {
      await vs.close({ failed });
    }
  },
);
