// Exports people share, checked the way they are used: a .cpuprofile from a real --prof log imports
// back with the same hot functions, speedscope carries its schema, and the HTML page is self-contained
// and strict. That the HTML page runs offline in a browser is checked by test/e2e/html-export.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadProfile } from '../../src/core/importers';
import type { EmbeddedProfile } from '../../src/core/viewer/embed';
import { readEmbeddedTimeline } from '../../src/core/viewer/embedTimeline';
import { exportWithCli, HOSTILE, recordProfLog, topShares, writeHostileFolded } from '../helpers/exportFixture';

/** The profile a page embeds, as the page reads it. */
const pageData = (html: string) => JSON.parse(/id="node-flame-data">([^]*?)<\/script>/.exec(html)![1]) as EmbeddedProfile;

test(
  'exports: .cpuprofile from a --prof log re-imports with the same top functions; speedscope has $schema; HTML is one strict page',
  { timeout: 180_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nf-export-'));
    try {
      const log = recordProfLog(dir);
      const original = await loadProfile(log);

      // .cpuprofile round trip.
      const cpu = join(dir, 'out.cpuprofile');
      exportWithCli(log, 'cpuprofile', cpu);
      const again = await loadProfile(cpu);
      assert.equal(again.format, 'cpuprofile');
      const a = topShares(original, 5);
      const b = topShares(again, 8);
      console.log(`[export] --prof top: ${[...a].map(([k, v]) => `${k} ${(v * 100).toFixed(1)}%`).join(', ')}`);
      console.log(
        `[export] re-imported: ${[...b]
          .slice(0, 5)
          .map(([k, v]) => `${k} ${(v * 100).toFixed(1)}%`)
          .join(', ')}`,
      );
      assert.equal([...b.keys()][0], [...a.keys()][0], 'the same hottest function');
      for (const [name, share] of a) {
        assert.ok(b.has(name), `${name} is among the re-imported top functions`);
        assert.ok(Math.abs(b.get(name)! - share) < 0.01, `${name}: ${share} vs ${b.get(name)}`);
      }
      assert.ok(Math.abs(again.tree.weight - original.tree.weight) <= 1, 'same number of samples');

      // speedscope's file format names its schema.
      const ss = join(dir, 'out.speedscope.json');
      exportWithCli(log, 'speedscope', ss);
      const doc = JSON.parse(readFileSync(ss, 'utf8')) as {
        $schema: string;
        shared: { frames: { name: string }[] };
        profiles: { weights: number[] }[];
      };
      assert.equal(doc.$schema, 'https://www.speedscope.app/file-format-schema.json');
      assert.ok(doc.shared.frames.some((f) => f.name === [...a.keys()][0]));
      assert.equal(
        doc.profiles.reduce((s, p) => s + p.weights.reduce((x, y) => x + y, 0), 0),
        original.tree.weight,
      );

      // The HTML viewer, from the --prof log and from a folded file with hostile names: one page, nothing fetched.
      const page1 = join(dir, 'prof.html');
      exportWithCli(log, 'html', page1);
      const prof = readFileSync(page1, 'utf8');
      assert.ok(prof.includes(JSON.stringify([...a.keys()][0]).slice(1, -1)), 'the hottest function is in the embedded profile');
      // The Timeline's data: every tick's leaf and time, packed, read back as the page reads it.
      const embedded = pageData(prof);
      const tl = original.timeline!;
      assert.equal(embedded.timeline?.samples, tl.times.length, 'the per-sample timeline is in the page');
      const back = await readEmbeddedTimeline(embedded.timeline!, embedded.parent.length);
      assert.deepEqual([...back.nodes], [...tl.nodes]);
      assert.ok(
        back.times.every((t, i) => Math.abs(t - tl.times[i]) <= 0.0005 + 1e-9),
        'the same times, to the µs',
      );
      const folded = join(dir, 'hostile.folded');
      writeHostileFolded(folded);
      const page2 = join(dir, 'hostile.html');
      exportWithCli(folded, 'html', page2);
      const html = readFileSync(page2, 'utf8');
      assert.match(html, /http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-[^']+'/);
      assert.equal(html.split('</script>').length - 1, 2, 'only the two script elements close: the data cannot');
      for (const name of HOSTILE) assert.ok(!html.includes(name), `${name} is not in the page as written`);
      assert.equal(pageData(html).timeline, undefined, 'folded stacks have no times to embed');
      console.log(
        `[export] html: ${(prof.length / 1024).toFixed(0)} KiB for ${original.tree.count} nodes, of it ${(embedded.timeline!.data.length / 1024).toFixed(0)} KiB for the timeline of ${tl.times.length} samples`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
