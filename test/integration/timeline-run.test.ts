// The guide's Express app launched by `node-flame profile --load`: the run folder holds the Timeline's
// markers (port open, load start/end, Stop) and the preload's event-loop delay and heap readings, and the
// delay goes over 50 ms while pbkdf2Sync serves the load.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadProfile } from '../../src/core/importers';
import { timeSpan } from '../../src/core/model/timeline';
import { timelineData } from '../../src/core/viewer/timelineAnswer';
import { runTimeFacts } from '../../src/launch/run/runTimeline';
import type { EmbeddedProfile } from '../../src/core/viewer/embed';
import { expressExample } from '../helpers/expressApp';
import { freePort } from '../helpers/net';
import { cli, repoRoot } from '../helpers/paths';

const autocannon = join(repoRoot, 'node_modules', 'autocannon', 'autocannon.js');

test('Express under a load: markers from run.json, event-loop delay over 50 ms during the load', { timeout: 120_000 }, async (t) => {
  const ws = mkdtempSync(join(tmpdir(), 'nf-timeline-run-'));
  t.after(() => rmSync(ws, { recursive: true, force: true }));
  copyFileSync(join(expressExample, 'app.js'), join(ws, 'app.js'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const load = `curl -s "${base}/newUser?username=matt&password=password" >/dev/null; "${process.execPath}" "${autocannon}" -c 4 -d 3 "${base}/auth?username=matt&password=password"`;
  const out = join(ws, 'runs');
  const r = spawnSync(
    process.execPath,
    [cli, 'profile', '--mode', 'cpu-prof', '--out', out, '--no-report', '--port', String(port), '--load', load, '--', 'node', 'app.js'],
    {
      cwd: ws,
      encoding: 'utf8',
      timeout: 90_000,
      env: { ...process.env, PORT: String(port), NODE_PATH: join(repoRoot, 'node_modules'), NODE_FLAME_LANG: 'en' },
    },
  );
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  const dir = join(out, readdirSync(out).find((d) => /-cpu-prof$/.test(d))!);
  const profileFile = join(dir, readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))!);
  assert.ok(
    readdirSync(dir).some((f) => /^loop-\d+\.jsonl$/.test(f)),
    'the preload wrote its readings',
  );

  const facts = (await runTimeFacts(profileFile))!;
  const at = (kind: string) => facts.markers.find((m) => m.kind === kind)?.at;
  const [start, portOpen, loadStart, loadEnd, stop] = ['start', 'port', 'loadStart', 'loadEnd', 'stop'].map(at);
  assert.ok(
    start !== undefined && portOpen !== undefined && loadStart !== undefined && loadEnd !== undefined && stop !== undefined,
    JSON.stringify(facts.markers),
  );
  assert.ok(portOpen <= loadStart && loadStart < loadEnd && loadEnd <= stop + 1, JSON.stringify(facts.markers));
  // The load ran about 3 s, and the profile covers it.
  assert.ok(loadEnd - loadStart > 2500 && loadEnd - loadStart < 8000, `load ${loadEnd - loadStart} ms`);
  const profile = await loadProfile(profileFile, { sourceMaps: false });
  const span = timeSpan(profile)!;
  assert.ok(span.end > loadEnd - 200, `profile ends at ${span.end}, load at ${loadEnd}`);

  const delay = facts.tracks.find((x) => x.kind === 'loopDelay')!;
  const heap = facts.tracks.find((x) => x.kind === 'heapUsed')!;
  assert.ok(delay && heap && delay.times.length === heap.times.length && delay.times.length >= 5, 'both tracks');
  assert.ok(
    heap.values.every((v) => v > 1e6),
    'heap readings in bytes',
  );
  const during = delay.values.filter((v, i) => delay.times[i] >= loadStart && delay.times[i] <= loadEnd + 100);
  const before = delay.values.filter((v, i) => delay.times[i] < portOpen);
  assert.ok(Math.max(...during) > 50, `delay during the load: ${during.join(' ')}`);
  console.log(
    `[integration] markers ${facts.markers.map((m) => `${m.kind}@${m.at.toFixed(0)}`).join(' ')}; loop delay before the port ${Math.max(0, ...before)} ms, during the load max ${Math.max(...during)} ms (${during.filter((v) => v > 50).length} of ${during.length} readings over 50 ms)`,
  );

  // The viewer's answer carries them.
  const msg = timelineData(profile, { type: 'timeline', width: 800, overview: true }, facts);
  assert.equal(msg.markers?.length, facts.markers.length);
  assert.ok(msg.overview && msg.overview.peak > 0);

  // The exported page's Timeline has them too: `report --format html` embeds the run's markers and tracks.
  const page = join(ws, 'run.html');
  const rep = spawnSync(process.execPath, [cli, 'report', profileFile, '--format', 'html', '-o', page], { encoding: 'utf8' });
  assert.equal(rep.status, 0, rep.stderr);
  const data = JSON.parse(/id="node-flame-data">([^]*?)<\/script>/.exec(readFileSync(page, 'utf8'))![1]) as EmbeddedProfile;
  assert.ok(data.timeline && data.timeline.samples > 0, 'the samples are in the page');
  assert.deepEqual(
    data.timeFacts?.markers.map((m) => m.kind),
    facts.markers.map((m) => m.kind),
  );
  assert.deepEqual(data.timeFacts?.tracks.find((x) => x.kind === 'loopDelay')?.values, delay.values);
});
