import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, repoRoot } from '../helpers/paths';
import { freePort } from '../helpers/net';

// examples/native-heavy under perf, as its README says: the time of /export is zlib's C code, and
// perf mode shows it (deflate_slow, longest_match in the node binary) under the JavaScript handler.
const perfVersion = process.platform === 'linux' ? spawnSync('perf', ['--version'], { encoding: 'utf8' }) : undefined;
const skip =
  perfVersion?.status === 0
    ? false
    : process.platform !== 'linux'
      ? 'perf is Linux only'
      : `perf is not installed (${perfVersion?.error?.message ?? perfVersion?.stderr.trim()})`;
if (skip) console.log(`# skipping the native-heavy example: ${skip}`);

const server = join(repoRoot, 'examples', 'native-heavy', 'server.js');
const autocannon = join(repoRoot, 'node_modules', 'autocannon', 'autocannon.js');

/** `ticks pct name` rows of one section of the text report. */
function section(text: string, title: string): { ticks: number; pct: number; name: string }[] {
  const start = text.indexOf(`[${title}]`);
  assert.ok(start >= 0, `no [${title}] section`);
  const rows = [];
  for (const line of text.slice(start).split('\n').slice(2)) {
    const m = /^\s+(\d+)\s+([\d.]+)%\s+(?:[\d.]+%\s+)?(.+)$/.exec(line);
    if (!m) break;
    rows.push({ ticks: Number(m[1]), pct: Number(m[2]), name: m[3] });
  }
  return rows;
}

test('native-heavy under perf: zlib C frames on top, under compressExport and handleExport', { skip, timeout: 120_000 }, async () => {
  const out = mkdtempSync(join(tmpdir(), 'nf-example-native-'));
  try {
    const port = await freePort();
    const load = `"${process.execPath}" "${autocannon}" -c 2 -d 3 http://localhost:${port}/export`;
    const r = spawnSync(
      process.execPath,
      [cli, 'profile', '--mode', 'perf', '--out', out, '--port', String(port), '--load', load, '--', 'node', server],
      {
        cwd: repoRoot,
        encoding: 'utf8',
        timeout: 90_000,
        env: { ...process.env, PORT: String(port) },
      },
    );
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /\d+ requests in/, 'the load ran');

    const cxx = section(r.stdout, 'C++');
    console.log(
      `perf C++ top: ${cxx
        .slice(0, 4)
        .map((c) => `${c.name} ${c.pct}%`)
        .join('; ')}`,
    );
    const zlib = cxx.filter((c) => /^(longest_match|deflate_slow|fill_window|compress_block) \[.*node.*\]$/.test(c.name));
    assert.ok(
      zlib.some((c) => c.name.startsWith('longest_match')),
      `longest_match in [C++]: ${cxx
        .slice(0, 5)
        .map((c) => c.name)
        .join(' | ')}`,
    );
    assert.ok(
      zlib.some((c) => c.name.startsWith('deflate_slow')),
      'deflate_slow in [C++]',
    );
    assert.match(cxx[0].name, /^(longest_match|deflate_slow) /, 'zlib is the hottest native code');
    const zlibPct = zlib.reduce((s, c) => s + c.pct, 0);
    assert.ok(zlibPct >= 30, `zlib holds ${zlibPct}% of the samples`);

    // Bottom-up from the hottest native frame, up through node's zlib binding to the app's handler.
    const heavy = r.stdout.slice(r.stdout.indexOf('[Bottom up (heavy) profile]'));
    const lines = heavy.split('\n');
    const first = lines.findIndex((l) => /^\s+\d+\s+[\d.]+%\s+(longest_match|deflate_slow) /.test(l));
    assert.ok(first >= 0, 'bottom-up starts at zlib');
    // Its whole subtree: the lines up to the next entry at the same depth.
    const depth = (l: string) => /^\s+\d+\s+[\d.]+%(\s+)/.exec(l)?.[1].length ?? -1;
    const end = lines.findIndex((l, i) => i > first && depth(l) <= depth(lines[first]));
    const chain = lines.slice(first, end < 0 ? undefined : end).join('\n');
    assert.match(
      chain,
      /ZlibContext[\s\S]*zlibBufferSync[\s\S]*compressExport .*native-heavy\/server\.js:22[\s\S]*handleExport .*server\.js:26/,
      chain,
    );
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
