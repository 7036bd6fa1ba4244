// perf's JIT maps write `render my template.ejs:1:10`, which a reader splits at the wrong space; the scripts a run's
// processes announced as named with spaces put the name, file, category and line heat right.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProfileBuilder } from '../../src/core/model';
import { applyAnnouncedScriptNames, inlineMapFileName, readAnnouncedSourceMaps } from '../../src/core/announcedSourceMaps';

test('scripts named with spaces: frames split inside the name are put back together, line heat with them', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'nf-named-'));
  try {
    writeFileSync(
      join(dir, inlineMapFileName(10, 0)),
      [JSON.stringify(['my template.ejs', null]), JSON.stringify(['/app/a.js', 'data:application/json,{}']), '["cut'].join('\n'),
    );
    const named = new Set<string>();
    const maps = await readAnnouncedSourceMaps(join(dir, 'perf.data'), named);
    assert.deepEqual([...named], ['my template.ejs']);
    assert.deepEqual(Object.keys(maps), ['/app/a.js'], 'a named script is no source map');

    const b = new ProfileBuilder('perf', { durationMs: null });
    const render = b.frame({ name: 'render my', file: 'template.ejs', line: 1, column: 10, category: 'node' });
    const evald = b.frame({ name: 'x my', file: 'template.ejs', line: 2, column: 1, category: 'eval' });
    const other = b.frame({ name: 'get area', file: '/app/a.js', line: 3, column: 1, category: 'app' });
    b.sample([other, render], 5);
    b.sample([evald], 1);
    b.lineHit('template.ejs', 1, 5, 5);
    const p = b.build();
    applyAnnouncedScriptNames(p, named);
    assert.deepEqual(
      [p.frames[render].name, p.frames[render].file, p.frames[render].category],
      ['render', 'my template.ejs', 'app'],
      'as cpu-prof names it',
    );
    assert.equal(p.frames[evald].name, 'x my', "eval'd code's category did not come from its file: left alone");
    assert.equal(p.frames[other].name, 'get area', 'a path names no script with spaces');
    assert.equal(p.lineHits.get('template.ejs')?.get(1)?.self, 5, 'a frame still names template.ejs: its heat stays');

    const q = new ProfileBuilder('perf', { durationMs: null });
    q.sample([q.frame({ name: 'render my', file: 'template.ejs', line: 1, column: 10, category: 'node' })], 2);
    q.lineHit('template.ejs', 1, 2, 2);
    const moved = q.build();
    applyAnnouncedScriptNames(moved, named);
    assert.equal(moved.lineHits.get('my template.ejs')?.get(1)?.self, 2);
    assert.ok(!moved.lineHits.has('template.ejs'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
