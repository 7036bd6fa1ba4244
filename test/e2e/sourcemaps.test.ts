// A webpack bundle whose sources were deleted after the build (#25), in a real VS Code: the flame graph
// names the hot function as written, and Enter on it opens the read-only text from the map at its line,
// with the CodeLens over it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startVSCode } from './helpers';
import type { Frame } from 'playwright-core';
import { buildEsbuild, buildWebpack, cpuProfile, CRUNCH_LINE, writeProject } from '../helpers/bundles';
import type { VSCode } from './helpers';

const SHOW = 'Node Flame: Show Profile File in Flame Graph…';
const LENS = /🔥 (\d+\.\d)% total/;

/** Shows a profile, checks crunchNumbers is drawn and at hot.ts:6 in the details, and presses Enter on it. */
async function enterOnCrunch(vs: VSCode, prof: string, label: string): Promise<Frame> {
  await vs.runCommand(SHOW);
  await vs.quickInputAnswer(prof);
  const frame = await vs.webviewFrame(`body[data-profile="${label}"][data-first-paint-ms] svg g.frame`, 90_000);
  const hot = frame.locator('[data-tree="top"] g.frame[name="crunchNumbers"]').first();
  await hot.waitFor({ state: 'attached', timeout: 30_000 }).catch(async (e: Error) => {
    const drawn = await frame.$$eval('g.frame', (gs) => gs.map((g) => g.getAttribute('name') ?? ''));
    assert.fail(`crunchNumbers is not drawn (${e.message.split('\n')[0]}); drawn: ${drawn.slice(0, 30).join(' | ')}`);
  });
  await hot.click();
  await frame
    .locator('.details')
    .filter({ hasText: `hot.ts:${CRUNCH_LINE}` })
    .waitFor({ timeout: 15_000 });
  await frame.locator('[data-tree="top"]').focus();
  await vs.page.keyboard.press('Enter');
  return frame;
}

async function activeAt(vs: VSCode, path: RegExp, line: number) {
  let ed = await vs.activeEditor();
  for (let i = 0; i < 60 && !(path.test(ed?.path ?? '') && ed?.line === line); i++) {
    await vs.page.waitForTimeout(250);
    ed = await vs.activeEditor();
  }
  return ed;
}

test(
  'esbuild --minify bundle: Enter on crunchNumbers opens src/hot.ts:6; webpack bundle, sources deleted: it opens from sourcesContent at hot.ts:6 with CodeLens and heat',
  { timeout: 600_000 },
  async () => {
    const ws = mkdtempSync(join(tmpdir(), 'nf-e2e-smap-'));
    try {
      writeProject(ws);
      const esbuildProf = cpuProfile(await buildEsbuild(ws), join(ws, 'prof-esbuild'));
      const prof = cpuProfile(await buildWebpack(ws), join(ws, 'prof'));
      const vs = await startVSCode({ workspace: ws, name: 'sourcemaps', viewport: { width: 1400, height: 900 } });
      let failed = true;
      try {
        await vs.waitForCommand(SHOW);
        // A minified esbuild bundle with its sources on disk: Enter opens the file itself at the line.
        await enterOnCrunch(vs, esbuildProf, esbuildProf.split('/').pop()!);
        const onDisk = await activeAt(vs, /src\/hot\.ts$/, CRUNCH_LINE);
        assert.deepEqual([onDisk?.file, onDisk?.line], ['src/hot.ts', CRUNCH_LINE]);
        await vs.runCommand('View: Close All Editors');

        // The webpack bundle's sources deleted: its map's text opens read-only.
        rmSync(join(ws, 'src'), { recursive: true });
        await enterOnCrunch(vs, prof, prof.split('/').pop()!);
        const ed = await activeAt(vs, /src\/hot\.ts/, CRUNCH_LINE);
        assert.match(ed?.path ?? '', /src\/hot\.ts/, JSON.stringify(ed));
        assert.equal(ed?.line, CRUNCH_LINE);
        const lines = vs.page.locator('.part.editor .editor-group-container.active .view-lines .view-line');
        await lines
          .filter({ hasText: /export\sfunction\scrunchNumbers/ })
          .first()
          .waitFor({ timeout: 15_000 });
        // CodeLens works in the read-only document too.
        let lens = '';
        for (let i = 0; i < 80 && !LENS.test(lens); i++) {
          lens = (
            await vs.page.$$eval('.part.editor .editor-group-container.active .codelens-decoration', (els) =>
              els.map((el) => (el as HTMLElement).innerText).join('\n'),
            )
          ).replace(/\u00a0/g, ' ');
          if (!LENS.test(lens)) await vs.page.waitForTimeout(250);
        }
        assert.match(lens, LENS);
        // Line heat too: the gutter bar our decorations draw.
        let marks = 0;
        for (let i = 0; i < 40 && marks === 0; i++) {
          marks = await vs.page.$$eval(
            '.part.editor .editor-group-container.active .margin .cgmr',
            (els) => els.filter((el) => getComputedStyle(el).backgroundImage.includes('data:image/svg+xml')).length,
          );
          if (marks === 0) await vs.page.waitForTimeout(250);
        }
        assert.ok(marks > 0, 'heat marks in the gutter of the read-only document');
        await vs.screenshot('sourcemaps-sources-content');
        failed = false;
      } finally {
        await vs.close({ failed });
      }
    } finally {
      rmSync(ws, { recursive: true, force: true });
    }
  },
);
