import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { cpuprofileImporter } from '../../src/core/importers/cpuprofile';
import { timelineData } from '../../src/core/viewer/timelineAnswer';
import type { FrameInfo } from '../../src/core/viewer/protocol';
import { boxCard } from '../../webview/timelineCanvas';
import type { Strings } from '../../webview/tree';
import { fixtures } from '../helpers/paths';

// phases.cpuprofile: a real `node --cpu-prof` run of phases.js (make.sh), whose hot functions are called from the
// arrow function `setTimeout` runs (phases.js:17).
test('a Timeline box of an anonymous function is named with its file and line, as in the flame graph', async () => {
  const p = await cpuprofileImporter.load(join(fixtures, 'timeline', 'phases.cpuprofile'), { sourceMaps: false });
  const d = timelineData(p, { type: 'timeline', width: 800 });
  const frames = new Map<number, FrameInfo>(Object.entries(d.frames).map(([k, f]) => [Number(k), f]));
  const s = { file: 'File', noFile: 'no file', category: 'Category', tlStart: 'Start', tlDuration: 'Duration' } as unknown as Strings;
  const names = d.boxes.frame.map((_, i) => boxCard(d, frames, i, s).name);
  assert.ok(names.includes('firstHot'), names.join(', '));
  const anon = names.filter((n) => n.startsWith('(anonymous)'));
  assert.ok(anon.length > 0, 'the arrow function has boxes');
  assert.ok(anon.includes('(anonymous) phases.js:17'), anon.join(', '));
});
