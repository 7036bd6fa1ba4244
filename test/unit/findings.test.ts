import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyJsFile, ProfileBuilder, type Frame } from '../../src/core/model';
import { findFindings, toJsonFinding, type Finding } from '../../src/core/findings';

const APP = '/ws/app.js';
const f = (name: string, file: string, line: number, category: Frame['category'], extra: Partial<Frame> = {}): Frame => ({
  name,
  file,
  line,
  column: 1,
  category,
  ...extra,
});

/** A request path: Node's HTTP parser calling an app handler. */
function requestPath(b: ProfileBuilder): number[] {
  return [b.frame(f('parserOnIncoming', 'node:_http_server', 1026, 'node')), b.frame(f('', APP, 20, 'app'))];
}

function only(list: Finding[], rule: string): Finding {
  const found = list.filter((x) => x.rule === rule);
  assert.equal(found.length, 1, JSON.stringify(list));
  return found[0];
}

test('blocking-sync: pbkdf2Sync under a handler is a warning at the calling line, naming crypto.pbkdf2; its frame is the one to select', () => {
  const b = new ProfileBuilder('v8log');
  const path = requestPath(b);
  const sync = b.frame(f('pbkdf2Sync', 'node:internal/crypto/pbkdf2', 62, 'node'));
  const native = b.frame(f('sha512_block_data_order', '', 0, 'native'));
  b.sample([...path, sync, native], 80);
  b.sample(path, 20);
  b.lineHit(APP, 22, 20, 20);
  b.lineHit(APP, 27, 0, 80);
  b.lineHit('/ws/other.js', 40, 0, 100);
  const x = only(findFindings(b.build()), 'blocking-sync');
  assert.equal(x.severity, 'warning');
  assert.equal(x.share, 0.8);
  assert.equal(x.file, APP);
  assert.equal(x.line, 27);
  assert.equal(x.frame, sync);
  assert.match(x.message, /crypto\.pbkdf2Sync .*80\.0%.*asynchronous crypto\.pbkdf2 /);
  assert.deepEqual(toJsonFinding(x), { rule: 'blocking-sync', severity: 'warning', message: x.message, file: APP, line: 27, share: 0.8 });
});

test('blocking-sync: fs.readFileSync suggests fs.promises; start-up code and small shares are left alone', () => {
  const b = new ProfileBuilder('v8log');
  const read = b.frame(f('readFileSync', 'node:fs', 441, 'node'));
  const entry = [b.frame(f('executeUserEntryPoint', 'node:internal/modules/run_main', 155, 'node')), b.frame(f('', APP, 1, 'app'))];
  b.sample([...entry, read], 50);
  b.sample([...requestPath(b), read], 30);
  b.sample([...requestPath(b), b.frame(f('execSync', 'node:child_process', 1, 'node'))], 1);
  b.sample([b.frame(f('work', APP, 50, 'app'))], 19);
  const list = findFindings(b.build());
  const x = only(list, 'blocking-sync');
  assert.equal(x.share, 0.3);
  assert.match(x.message, /fs\.readFileSync .*fs\.promises\.readFile /);
});

test('blocking-sync: zlib is named from the native code under its one wrapper; Atomics.wait and a frame named constructor', () => {
  const b = new ProfileBuilder('v8log');
  const wrapper = b.frame(f('zlibBufferSync', 'node:zlib', 123, 'node'));
  const timer = [b.frame(f('listOnTimeout', 'node:internal/timers', 1, 'node')), b.frame(f('tick', APP, 5, 'app'))];
  b.sample([...timer, wrapper, b.frame(f('longest_match', '', 0, 'native'))], 30);
  b.sample([...timer, wrapper, b.frame(f('deflate_slow', '', 0, 'native'))], 30);
  b.sample([...timer, wrapper, b.frame(f('inflate_fast', '', 0, 'native'))], 5);
  b.sample(
    [...requestPath(b), b.frame(f('v8::internal::Builtin_AtomicsWait(int, unsigned long*, v8::internal::Isolate*)', '', 0, 'native'))],
    20,
  );
  b.sample([...requestPath(b), b.frame(f('constructor', 'node:internal/x', 1, 'node'))], 15);
  const list = findFindings(b.build()).filter((x) => x.rule === 'blocking-sync');
  assert.equal(list.length, 2, JSON.stringify(list));
  assert.match(list[0].message, /zlib\.deflateSync .*zlib\.deflate /);
  assert.equal(list[0].share, 0.65);
  assert.match(list[1].message, /Atomics\.wait .*Atomics\.waitAsync/);
});

test('regexp: names the pattern the log gave; gc-pressure over 10 %; idle; native library named, libc left out', () => {
  const b = new ProfileBuilder('v8log');
  const path = requestPath(b);
  b.sample(
    [...path, b.frame(f('RegExpPrototypeTest', '', 0, 'v8', { tier: 'builtin' })), b.frame(f('RegExp: ^(\\w+\\s?)*$', '', 0, 'v8'))],
    30,
  );
  b.sample([b.frame(f('(garbage collector)', '', 0, 'gc'))], 15);
  b.sample([...path, b.frame(f('compress', '', 0, 'shared-lib', { lib: '/usr/lib/libzstd.so.1' }))], 20);
  b.sample([...path, b.frame(f('memcpy', '', 0, 'shared-lib', { lib: '/usr/lib/x86_64-linux-gnu/libc.so.6' }))], 20);
  b.sample([b.frame(f('(idle)', '', 0, 'idle'))], 15);
  const list = findFindings(b.build());
  assert.match(only(list, 'regexp').message, /\/\^\(\\w\+\\s\?\)\*\$\/ takes 30\.0%/);
  assert.equal(only(list, 'gc-pressure').share, 0.15);
  const lib = only(list, 'native-library');
  assert.match(lib.message, /libzstd\.so\.1/);
  assert.equal(lib.file, APP);
  assert.equal(list.filter((x) => x.rule === 'mostly-idle').length, 0, 'idle under the threshold');
  const severities = list.map((x) => x.severity).join(' ');
  assert.match(severities, /^(warning )*(info ?)*$/, 'warnings first');
});

test('deopt-loop: three deopts of a hot function, with the commonest reason and the tiers it ran', () => {
  const b = new ProfileBuilder('v8log');
  const hotT = b.frame(f('add', APP, 1, 'app', { tier: 'turbofan' }));
  const hotI = b.frame(f('add', APP, 1, 'app', { tier: 'interpreted' }));
  const main = b.frame(f('main', APP, 10, 'app'));
  b.sample([main, hotT], 60);
  b.sample([main, hotI], 20);
  b.sample([main], 20);
  for (const reason of ['wrong map', 'wrong map', 'not a Smi'])
    b.deopts.push({ frame: hotT, timeMs: 1, kind: 'deopt-eager', reason, file: APP, line: 1, column: 30 });
  b.deopts.push({ frame: main, timeMs: 1, kind: 'deopt-eager', reason: 'wrong map', file: APP, line: 12, column: 3 });
  const p = b.build();
  const x = only(findFindings(p), 'deopt-loop');
  assert.match(x.message, /deoptimized add 3 times \(mostly "wrong map"\); it ran 75% TurboFan, 25% Ignition/);
  assert.equal(x.share, 0.8);
  assert.equal(x.line, 1);
  assert.ok(x.frame === hotT || x.frame === hotI);
});

test('hot-module-load: require on a request path, not at start-up; an idle app; an empty profile has none', () => {
  const b = new ProfileBuilder('cpuprofile');
  const load = b.frame(f('Module._load', 'node:internal/modules/cjs/loader', 1003, 'node'));
  b.sample([...requestPath(b), load], 10);
  b.sample([b.frame(f('runMain', 'node:internal/modules/run_main', 1, 'node')), load], 5);
  b.sample([b.frame(f('(idle)', '', 0, 'idle'))], 85);
  const list = findFindings(b.build());
  const m = only(list, 'hot-module-load');
  assert.equal(m.share, 0.1);
  assert.equal(m.file, APP);
  const idle = only(list, 'mostly-idle');
  assert.equal(idle.share, 0.85);
  assert.match(idle.message, /nodeFlame\.loadCommand/);
  assert.deepEqual(findFindings(new ProfileBuilder('folded').build()), []);
});

test('batch-hot-call: zlib, crypto and JSON work before the event loop get batch advice at the calling line; fs at start-up stays quiet', () => {
  const b = new ProfileBuilder('v8log');
  const entry = [
    b.frame(f('executeUserEntryPoint', 'node:internal/modules/run_main', 155, 'node')),
    b.frame(f('compressAll', APP, 4, 'app')),
  ];
  const wrapper = b.frame(f('syncBufferWrapper', 'node:zlib', 123, 'node'));
  b.sample([...entry, wrapper, b.frame(f('deflate_slow', '', 0, 'native'))], 40);
  b.sample([...entry, wrapper, b.frame(f('Deflate', 'node:zlib', 707, 'node'))], 5);
  const hash = b.frame(f('hashAll', APP, 20, 'app'));
  b.sample([entry[0], hash, b.frame(f('pbkdf2Sync', 'node:internal/crypto/pbkdf2', 62, 'node'))], 20);
  b.sample([...entry, b.frame(f('readFileSync', 'node:fs', 441, 'node'))], 30);
  b.sample([...entry], 5);
  b.lineHit(APP, 6, 0, 45);
  b.lineHit(APP, 22, 0, 20);
  const list = findFindings(b.build());
  assert.ok(!list.some((x) => x.rule === 'blocking-sync'), JSON.stringify(list));
  const batch = list.filter((x) => x.rule === 'batch-hot-call');
  assert.equal(batch.length, 2, JSON.stringify(list));
  const [zlib, crypto] = batch;
  assert.match(zlib.message, /^zlib\.deflateSync takes 45\.0% .*before the event loop.*compression level/);
  assert.equal(zlib.severity, 'warning');
  assert.equal(zlib.line, 6);
  assert.match(crypto.message, /^crypto\.pbkdf2Sync takes 20\.0% .*asynchronous crypto\.pbkdf2 /);
  assert.equal(crypto.severity, 'info');
  assert.equal(crypto.line, 22);
});

test("hot-module-load never points into this extension's preload or npm's code, and says so when nothing of the user's is on the stack", () => {
  const b = new ProfileBuilder('cpuprofile');
  const preloadFile = '/home/u/.vscode/extensions/node-flame/dist/preload-stop.js';
  assert.equal(classifyJsFile(preloadFile).category, 'node', 'machinery, like Node’s loader');
  const preload = b.frame({ name: '', file: preloadFile, line: 1, column: 1, ...classifyJsFile(preloadFile) });
  const npmFile = '/usr/lib/node_modules/npm/lib/npm.js';
  const npm = b.frame({ name: 'load', file: npmFile, line: 29, column: 1, ...classifyJsFile(npmFile) });
  const load = b.frame(f('Module._load', 'node:internal/modules/cjs/loader', 1003, 'node'));
  const timer = b.frame(f('listOnTimeout', 'node:internal/timers', 1, 'node'));
  b.sample([timer, preload, load], 10);
  b.sample([timer, npm, load], 10);
  b.sample([b.frame(f('work', APP, 50, 'app'))], 80);
  const m = only(findFindings(b.build()), 'hot-module-load');
  assert.equal(m.file, undefined);
  assert.equal(m.line, undefined);
  assert.doesNotMatch(m.message, /here/);
  assert.match(m.message, /no code of yours/);
});

test("a run's processes each answer for themselves: the server's blocking share is of its own samples, an idle helper's idle is its own", () => {
  const b = new ProfileBuilder('cpuprofile');
  const server = 'pid 10 server.js';
  const helper = 'pid 11 watcher.js';
  const sync = b.frame(f('pbkdf2Sync', 'node:internal/crypto/pbkdf2', 62, 'node'));
  b.sample([...requestPath(b), sync], 60, undefined, server);
  b.sample([b.frame(f('(idle)', '', 0, 'idle'))], 40, undefined, server);
  b.sample([b.frame(f('(idle)', '', 0, 'idle'))], 95, undefined, helper);
  b.sample([b.frame(f('poll', '/ws/watcher.js', 3, 'app'))], 5, undefined, helper);
  b.threadInfo(server, { pid: 10 });
  b.threadInfo(helper, { pid: 11 });
  const list = findFindings(b.build());
  const blocking = only(list, 'blocking-sync');
  assert.equal(blocking.pid, 10);
  assert.equal(blocking.share, 0.6, "60 of the server's 100 samples, not 60 of the run's 200");
  const idle = only(list, 'mostly-idle');
  assert.equal(idle.pid, 11);
  assert.equal(idle.share, 0.95);
  assert.equal(toJsonFinding(blocking).pid, 10);
});
