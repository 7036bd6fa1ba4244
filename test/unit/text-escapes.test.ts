// Issue 37, items 15 and 19: names a repository's profile carries must not drive a terminal or a CI log
// (`diff`'s text printed raw control characters: a name could start a `::` workflow-command line), must
// not reverse labels (U+202E), and an HTML export must not carry the environment a run was started with.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cli } from '../helpers/paths';
import { tempFiles } from '../helpers/tempFiles';
import { loadProfile } from '../../src/core/importers';
import { exportProfile } from '../../src/core/exporters';

const write = tempFiles('nf-escapes-', '.folded');
const RLO = '\u202e';
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** A `.cpuprofile` (JSON: the format that carries any character in a name) with `[name, file, hits]` under main. */
function cpuprofile(fns: [string, string, number][]): string {
  const nodes = [
    { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1, columnNumber: -1 }, hitCount: 0, children: [2] },
    {
      id: 2,
      callFrame: { functionName: 'main', url: 'file:///app/main.js', lineNumber: 0, columnNumber: 0 },
      hitCount: 0,
      children: fns.map((_, i) => i + 3),
    },
    ...fns.map(([name, file, hits], i) => ({
      id: i + 3,
      callFrame: { functionName: name, url: `file://${file}`, lineNumber: i + 1, columnNumber: 2 },
      hitCount: hits,
      children: [],
    })),
  ];
  return JSON.stringify({ nodes, startTime: 0, endTime: 1e6 });
}
const cpuFile = tempFiles('nf-escapes-cpu-', '.cpuprofile');
const before = cpuFile(
  cpuprofile([
    ['work', '/app/w.js', 50],
    ['other', '/app/o.js', 50],
  ]),
);
const after = cpuFile(
  cpuprofile([
    ['work', '/app/w.js', 10],
    ['evil\r\n::error file=x::pwned\u001b[31m', '/app/e.js', 60],
    [`ab${RLO}cd.exe`, `/app/r${RLO}.js`, 30],
  ]),
);
void write;

test('diff text output: control characters and direction controls are written out, no line starts with "::"', () => {
  const r = spawnSync(process.execPath, [cli, 'diff', before, after], { encoding: 'utf8', timeout: 30000 });
  assert.equal(r.status, 0, r.stderr);
  for (const out of [r.stdout, r.stderr]) {
    assert.doesNotMatch(out, RAW_CONTROL);
    for (const line of out.split('\n')) assert.ok(!line.startsWith('::'), `a line starts a workflow command: ${line}`);
  }
  assert.match(r.stdout, /evil\\x0d\\x0a::error/);
});

test('report text output and warnings: the same names are written out', () => {
  const r = spawnSync(process.execPath, [cli, 'report', after], { encoding: 'utf8', timeout: 30000 });
  assert.equal(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stdout + r.stderr, RAW_CONTROL);
});

test('a right-to-left override in a name is shown as \\u202e in the model, every view and export', async () => {
  const p = await loadProfile(after, { sourceMaps: false });
  const f = p.frames.find((x) => x.name.startsWith('ab'));
  assert.equal(f?.name, 'ab\\u202ecd.exe');
  const html = exportProfile(p, 'html');
  assert.ok(!html.includes(RLO), 'the HTML export holds a raw U+202E');
});

test('HTML export: the command line carries no environment (a perf run wraps the app in env PATH=…)', async () => {
  const p = await loadProfile(before, { sourceMaps: false });
  p.meta.command = 'perf record -g -o /tmp/r/perf.data -- env PATH=/home/me/secret-bin:/usr/bin NODE_OPTIONS=--require=/x.js npm start';
  p.meta.processes = [{ pid: 1, ppid: 0, command: 'env API_TOKEN=abc123 node server.js' }];
  const html = exportProfile(p, 'html');
  for (const leak of ['secret-bin', 'PATH=', 'API_TOKEN', 'abc123', 'NODE_OPTIONS'])
    assert.ok(!html.includes(leak), `the HTML export holds ${leak}`);
  assert.ok(html.includes('npm start') && html.includes('node server.js'), 'the commands themselves stay');
});
