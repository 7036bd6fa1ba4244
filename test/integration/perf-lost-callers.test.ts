// perf mode on a program hashing with OpenSSL: perf's frame-pointer unwinding stops in OpenSSL's assembly, so a
// share of the samples is drawn at the root, missing from the JavaScript that called it. The run says so, naming
// the frame; a program of plain JavaScript (whole stacks) and the same hashing in cpu-prof mode (V8 walks its own
// stack) say nothing of it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { profileJson, reportJson } from '../helpers/cli';
import { perfCannotRecord } from '../helpers/perfProbe';

const HASHING = `
const crypto = require('node:crypto');
function hashIt(s) { return crypto.pbkdf2Sync(s, 'salt', 2000, 64, 'sha512'); }
function work() { let x = 0; for (let i = 0; i < 1e5; i++) x += Math.sqrt(i); return x; }
const end = Date.now() + 2500;
while (Date.now() < end) { hashIt('pw' + Math.random()); work(); }
`;
const PLAIN = `
function work() { let x = 0; for (let i = 0; i < 1e5; i++) x += Math.sqrt(i); return x; }
function alloc() { const a = []; for (let i = 0; i < 1e4; i++) a.push({ i, s: 'x' + i }); return a.length; }
const end = Date.now() + 2500;
while (Date.now() < end) { work(); alloc(); }
`;
const NOTE =
  /node-flame: warning: ([\d.]+) % of the samples' stacks do not reach their thread's start \(the most under (.+?), ([\d.]+) %\)/;

test(
  'perf mode says which share of the stacks lost their callers, and under which frame',
  { skip: perfCannotRecord, timeout: 200_000 },
  async (t) => {
    const work = mkdtempSync(join(tmpdir(), 'nf-lost-callers-'));
    t.after(() => rmSync(work, { recursive: true, force: true }));
    writeFileSync(join(work, 'hash.js'), HASHING);
    writeFileSync(join(work, 'plain.js'), PLAIN);

    const hashed = await profileJson(work, 'perf', 'hash-perf', ['node', 'hash.js']);
    const m = NOTE.exec(hashed.stderr);
    assert.ok(m, `no lost-callers note from profile:\n${hashed.stderr}`);
    t.diagnostic(`perf, hashing: ${m[1]} % of the samples lost their callers, the most under ${m[2]} (${m[3]} %)`);
    assert.ok(Number(m[1]) >= 5 && Number(m[3]) <= Number(m[1]), m[0]);
    // OpenSSL is linked into node: the frame named is the binary's, not perf's "[unknown]".
    assert.match(m[2], /\(node\)$/);
    assert.ok(!m[2].startsWith('[unknown]'), m[2]);

    // The same samples drawn under (callers unknown): its total is the note's share.
    const runs = join(work, 'runs');
    const run = join(runs, readdirSync(runs).find((n) => n.endsWith('-perf'))!);
    const fns = reportJson<{ functions: { name: string; total: number }[] }>(run).functions;
    const unknown = fns.find((f) => f.name === '(callers unknown)');
    assert.ok(unknown && Math.abs(unknown.total * 100 - Number(m[1])) < 0.1, `(callers unknown) ${unknown?.total}, note ${m[1]} %`);

    const plain = await profileJson(work, 'perf', 'plain-perf', ['node', 'plain.js']);
    assert.doesNotMatch(plain.stderr, NOTE, 'plain JavaScript: whole stacks');
    const cpu = await profileJson(work, 'cpu-prof', 'hash-cpu', ['node', 'hash.js']);
    assert.doesNotMatch(cpu.stderr, NOTE, 'cpu-prof: V8 walks its own stack');
  },
);
