// `node-flame report` with call-tree transforms on the guide's Express app, really profiled.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { profileExpressApp, expressExample } from '../helpers/expressApp';
import { cli } from '../helpers/paths';

interface Report {
  samples: number;
  functions: { name: string; file: string | null; self: number; total: number }[];
}

const report = (file: string, ...args: string[]) =>
  spawnSync(process.execPath, [cli, 'report', file, ...args], { encoding: 'utf8', env: { ...process.env, NODE_FLAME_LANG: 'en' } });
const json = (file: string, ...args: string[]): Report => {
  const r = report(file, '--format', 'json', '--top', '1000', ...args);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as Report;
};

test('report --focus / --merge / --drop / --exclude on the Express app (tick log and .cpuprofile)', { timeout: 180000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'nf-xform-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const profiler of ['prof', 'cpu-prof'] as const) {
    const cwd = join(dir, profiler);
    mkdirSync(cwd);
    copyFileSync(join(expressExample, 'app.js'), join(cwd, 'app.js'));
    const file = await profileExpressApp({ cwd, profiler, load: { connections: 4, requests: 40 } });
    const all = json(file);
    // One entry per frame: a tick log has pbkdf2Sync in two V8 tiers, which never call each other here.
    const share = all.functions.filter((f) => f.name === 'pbkdf2Sync').reduce((a, f) => a + f.total, 0);
    assert.ok(share > 0.3 && share < 1, `${profiler}: pbkdf2Sync before: ${share}`);
    assert.ok(
      all.functions.some((f) => f.name === 'handle'),
      `${profiler}: express's handle is in the plain report`,
    );

    const focused = json(file, '--focus', 'pbkdf2Sync');
    const root = focused.functions.filter((f) => f.name === 'pbkdf2Sync');
    assert.equal(root.length, 1, `${profiler}: one pbkdf2Sync`);
    assert.equal(root[0].total, 1, `${profiler}: pbkdf2Sync is the whole focused profile`);
    assert.ok(
      Math.abs(focused.samples - share * all.samples) <= 1e-3 * all.samples,
      `${profiler}: focused samples ${focused.samples} = pbkdf2Sync's share of ${all.samples}`,
    );
    assert.ok(!focused.functions.some((f) => f.name === 'handle'), `${profiler}: nothing above pbkdf2Sync is left`);
    // The tick log sees the native hashing under pbkdf2Sync; a .cpuprofile counts it as pbkdf2Sync's own.
    if (profiler === 'prof')
      assert.ok(
        focused.functions.some((f) => /sha512/i.test(f.name) && f.self > 0.2),
        `${profiler}: the hashing is under pbkdf2Sync`,
      );

    const merged = json(file, '--merge', 'handle');
    assert.ok(!merged.functions.some((f) => f.name === 'handle'), `${profiler}: no handle after --merge handle`);
    assert.equal(merged.samples, all.samples, `${profiler}: merging keeps every sample`);

    const dropped = json(file, '--drop', 'pbkdf2Sync');
    assert.ok(!dropped.functions.some((f) => f.name === 'pbkdf2Sync'), `${profiler}: dropped`);
    assert.ok(Math.abs(dropped.samples - (1 - share) * all.samples) <= 1e-3 * all.samples, `${profiler}: drop keeps the rest`);

    // In order: merging handle then focusing on it finds nothing; the other way round keeps the focus.
    const a = report(file, '--format', 'folded', '--focus', 'pbkdf2Sync', '--exclude', '^pbkdf2Sync$');
    assert.equal(a.status, 0, a.stderr);
    assert.ok(
      a.stdout.trim().length > 0 && !/(^|;)pbkdf2Sync(;| )/m.test(a.stdout),
      `${profiler}: excluded after focusing: ${a.stdout.slice(0, 200)}`,
    );
    const b = report(file, '--format', 'folded', '--exclude', '^pbkdf2Sync$', '--focus', 'pbkdf2Sync');
    assert.equal(b.status, 0, b.stderr);
    assert.equal(b.stdout.trim(), '', `${profiler}: focusing on an excluded function leaves nothing`);

    // Every export format takes the transforms: the folded stacks all start at pbkdf2Sync.
    const folded = report(file, '--format', 'folded', '--focus', 'pbkdf2Sync');
    assert.equal(folded.status, 0, folded.stderr);
    const lines = folded.stdout.trim().split('\n');
    assert.ok(lines.length > 0 && lines.every((l) => l.startsWith('pbkdf2Sync')), `${profiler}: folded: ${lines.slice(0, 3).join(' | ')}`);
    const cpuprofile = report(file, '--format', 'cpuprofile', '--merge', 'handle');
    assert.equal(cpuprofile.status, 0, cpuprofile.stderr);
    const nodes = (JSON.parse(cpuprofile.stdout) as { nodes: { callFrame: { functionName: string } }[] }).nodes;
    assert.ok(nodes.length > 1 && !nodes.some((n) => n.callFrame.functionName === 'handle'), `${profiler}: cpuprofile without handle`);
  }
});

test('report refuses an exclude pattern that can backtrack without end, and names an unknown function', () => {
  const folded = join(mkdtempSync(join(tmpdir(), 'nf-xform-')), 'x.folded');
  writeFileSync(folded, 'main;work 3\nmain;idle 1\n');
  const bad = report(folded, '--exclude', '(a+)+$');
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--exclude "\(a\+\)\+\$".*exponential/);
  const typo = report(folded, '--format', 'json', '--focus', 'wrok');
  assert.equal(typo.status, 0);
  assert.match(typo.stderr, /no function or package named "wrok"/);
  assert.equal((JSON.parse(typo.stdout) as Report).samples, 0);
  const ok = json(folded, '--merge', 'work', '--drop', 'idle');
  assert.deepEqual(
    ok.functions.map((f) => [f.name, f.self, f.total]),
    [['main', 1, 1]],
  );
  assert.equal(ok.samples, 3);
  rmSync(join(folded, '..'), { recursive: true, force: true });
});
