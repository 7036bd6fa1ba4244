import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuprofileImporter } from '../../src/core/importers/cpuprofile';
import { speedscopeImporter } from '../../src/core/importers/speedscope';
import { sniffFormat } from '../../src/core/importers';
import { toSpeedscope } from '../../src/core/exporters/speedscope';
import { mergeProfiles, ProfileError, type Profile } from '../../src/core/model';
import { cpuProfile } from '../helpers/bundles';
import { tempFiles } from '../helpers/tempFiles';

const file = tempFiles('nf-speedscope-', '.json');
const dir = mkdtempSync(join(tmpdir(), 'nf-speedscope-rec-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

function record(name: string): string {
  const script = join(dir, `${name}.js`);
  writeFileSync(
    script,
    `function ${name}(n) { return n < 2 ? n : ${name}(n - 1) + ${name}(n - 2); }
     const t = Date.now(); let s = 0; while (Date.now() - t < 250) s += ${name}(20);
     console.log(s > 0 ? 'ok' : 'no');`,
  );
  mkdirSync(join(dir, name));
  return cpuProfile(script, join(dir, name));
}

/** Self weight by function identity (name, file, line, column, category) and thread level: what must survive the trip. */
function selfByFunction(p: Profile): Map<string, number> {
  const m = new Map<string, number>();
  p.tree.forEachStack((stack, self) => {
    const f = p.frames[stack[stack.length - 1]];
    const thread = stack.length > 1 && p.frames[stack[0]].name.startsWith('thread ') ? p.frames[stack[0]].name : '';
    const key = `${thread}|${f.name}|${f.file}|${f.line}|${f.column}|${f.category}`;
    m.set(key, (m.get(key) ?? 0) + self);
  });
  return m;
}

test('a real --cpu-prof profile exported to speedscope reads back with the same functions and self totals', async () => {
  const cpu = await cpuprofileImporter.load(record('fibSs'), {});
  const path = file(JSON.stringify(toSpeedscope(cpu)));
  assert.equal((await sniffFormat(path)).format, 'speedscope');
  const back = await speedscopeImporter.load(path, {});
  assert.equal(back.format, 'speedscope');
  assert.equal(back.tree.weight, cpu.tree.weight);
  assert.deepEqual(selfByFunction(back), selfByFunction(cpu));
  assert.ok([...selfByFunction(back).keys()].some((k) => k.includes('|fibSs|')));
  assert.equal(back.threads.length, 1);
});

test('several profiles of one speedscope file become several threads, each with its own samples', async () => {
  const a = await cpuprofileImporter.load(record('fibOne'), {});
  const b = await cpuprofileImporter.load(record('fibTwo'), {});
  const merged = mergeProfiles(
    [
      { profile: a, thread: 'one' },
      { profile: b, thread: 'two' },
    ],
    { durationMs: null },
  );
  const path = file(JSON.stringify(toSpeedscope(merged), null, 1));
  const back = await speedscopeImporter.load(path, {});
  assert.deepEqual(back.threads.map((t) => [t.name, t.samples]).sort(), [
    ['one', a.tree.weight],
    ['two', b.tree.weight],
  ]);
  assert.deepEqual(selfByFunction(back), selfByFunction(merged));
});

test('an evented profile: self time from open and close events, in ms whatever the unit, with a timeline', async () => {
  const doc = (unit: string, k: number) => ({
    $schema: 'https://www.speedscope.app/file-format-schema.json',
    shared: {
      frames: [{ name: 'main', file: '/app/main.js', line: 3, col: 1 }, { name: 'work', file: '/app/work.js', line: 10 }, { name: 'io' }],
    },
    profiles: [
      {
        type: 'evented',
        name: 'loop',
        unit,
        startValue: 0,
        endValue: 12 * k,
        events: [
          { type: 'O', frame: 0, at: 0 },
          { type: 'O', frame: 1, at: 2 * k },
          { type: 'O', frame: 2, at: 3 * k },
          { type: 'C', frame: 2, at: 4 * k },
          { type: 'C', frame: 1, at: 7 * k },
          { type: 'C', frame: 0, at: 10 * k },
        ],
      },
    ],
  });
  for (const [unit, k] of [
    ['milliseconds', 1],
    ['microseconds', 1000],
    ['nanoseconds', 1e6],
  ] as const) {
    const p = await speedscopeImporter.load(file(JSON.stringify(doc(unit, k))), {});
    const self = new Map([...selfByFunction(p)].map(([key, v]) => [key.split('|')[1], v]));
    assert.deepEqual(Object.fromEntries(self), { main: 5, work: 4, io: 1 }, unit);
    assert.equal(p.meta.unit, 'ms');
    assert.equal(p.meta.durationMs, 12);
    assert.deepEqual([...p.timeline!.times], [0, 2, 3, 4, 7, 10]);
    assert.equal(p.frames[p.tree.frame[p.timeline!.nodes[2]]].name, 'io');
    assert.equal(p.timeline!.nodes[5], 0, 'nothing open after the last close');
    const main = p.frames.find((f) => f.name === 'main')!;
    assert.deepEqual([main.file, main.line, main.column], ['/app/main.js', 3, 1]);
  }
});

test('malformed speedscope files are refused with a clear error or read with a warning, never a crash', async () => {
  const head = '{"$schema":"https://www.speedscope.app/file-format-schema.json",';
  const good = `${head}"shared":{"frames":[{"name":"a"},{"name":"b"}]},"profiles":[{"type":"sampled","name":"t","unit":"none","startValue":0,"endValue":3,"samples":[[0,1],[0]],"weights":[2,1]}]}`;
  const ok = await speedscopeImporter.load(file(good), {});
  assert.equal(ok.tree.weight, 3);
  const refused: [string, RegExp][] = [
    [good.slice(0, good.length - 20), /speedscope file is truncated or corrupt/],
    [`${head}"profiles":[]}`, /no "shared.frames"/],
    [`${head}"shared":{"frames":[]},"profiles":5}`, /no "profiles"/],
    [`${head}"shared":{"frames":[]},"profiles":[{"type":"flame"}]}`, /neither "sampled"/],
    [
      `${head}"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"sampled","samples":[[0]],"weights":[1,2]}]}`,
      /1 samples but 2 weights/,
    ],
  ];
  for (const [text, why] of refused)
    await assert.rejects(speedscopeImporter.load(file(text), {}), (e: Error) => e instanceof ProfileError && why.test(e.message), text);
  // Stacks of the wrong type, frames past the table, events out of place: skipped or named, with a warning.
  const odd = await speedscopeImporter.load(
    file(
      `${head}"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"sampled","name":"s","samples":[[0,"x"],null,[0,7]],"weights":[1,1,1]},` +
        `{"type":"evented","name":"e","unit":"milliseconds","events":[{"type":"O","frame":0,"at":1},{"type":"C","frame":3,"at":2},{"type":"X"},{"type":"O","frame":0,"at":0}]}]}`,
    ),
    {},
  );
  assert.equal(odd.threads.length, 2);
  assert.ok(
    odd.warnings.some((w) => /malformed entries of "s"/.test(w)),
    odd.warnings.join('; '),
  );
  assert.ok(
    odd.warnings.some((w) => /do(es)? not list/.test(w)),
    odd.warnings.join('; '),
  );
  assert.ok(
    odd.warnings.some((w) => /never closed/.test(w)),
    odd.warnings.join('; '),
  );
});
