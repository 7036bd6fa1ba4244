// perf samples a child Node forks (child_process.spawn) before its exec on a copy of its parent's stack, its JIT frames
// named from the parent's perf-<pid>.map: the child read as a thread that ran JavaScript. Lines as this machine's
// `perf script` printed them (then named from the run's jitdump), from the corpus bench's `jest --workerThreads` perf run
// that counted threads 6/5: jest-haste-map's isWatchmanInstalled ran execFile('watchman') (not installed), the child
// 13456 lived 0.37 ms (fork, a failed execve, exit) and got one sample.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PerfScriptParser } from '../../src/core/importers/perf';
import { JitFrameNamer } from '../../src/core/importers/perf/jitNamer';
import { TimedJitMap } from '../../src/core/importers/perf/jitTimeline';
import type { Profile } from '../../src/core/model';

/** The parent's sample just before: forking. */
const PARENT = [
  'node 13416/13416 62384.451712:    1001001 cpu-clock:ppp: ',
  '\tffffffff821ffe51 down_write ([kernel.kallsyms])',
  '\tffffffff815f589f dup_mmap ([kernel.kallsyms])',
  '\tffffffff81357977 copy_process ([kernel.kallsyms])',
  '\tffffffff81358624 kernel_clone ([kernel.kallsyms])',
  '\tffffffff813589e5 __do_sys_clone ([kernel.kallsyms])',
  '\tffffffff821ef691 do_syscall_64 ([kernel.kallsyms])',
  '\tffffffff81000130 entry_SYSCALL_64_after_hwframe ([kernel.kallsyms])',
  '\t           d4353 _Fork (/usr/lib/x86_64-linux-gnu/libc.so.6)',
  '',
];

/** The child's: inside its execve, under uv_spawn; below that, the parent's stack down to jest's haste map. */
const CHILD = [
  'node 13456/13456 62384.452705:    1001001 cpu-clock:ppp: ',
  '\tffffffff816e1f36 __d_lookup_rcu ([kernel.kallsyms])',
  '\tffffffff816cd84e lookup_fast ([kernel.kallsyms])',
  '\tffffffff816d319c path_openat ([kernel.kallsyms])',
  '\tffffffff816d4303 do_filp_open ([kernel.kallsyms])',
  '\tffffffff816c610d do_open_execat ([kernel.kallsyms])',
  '\tffffffff816c6390 alloc_bprm ([kernel.kallsyms])',
  '\tffffffff816c6efd do_execveat_common.isra.0 ([kernel.kallsyms])',
  '\tffffffff816c8064 __x64_sys_execve ([kernel.kallsyms])',
  '\tffffffff821ef691 do_syscall_64 ([kernel.kallsyms])',
  '\tffffffff81000130 entry_SYSCALL_64_after_hwframe ([kernel.kallsyms])',
  '\t           d4ad7 __GI___execve (/usr/lib/x86_64-linux-gnu/libc.so.6)',
  '\t         14b6520 uv_spawn (/usr/bin/node)',
  '\t          9cfc24 node::(anonymous namespace)::ProcessWrap::Spawn (/usr/bin/node)',
  '\t          b50bdf v8::internal::FunctionCallbackArguments::Call (/usr/bin/node)',
  '\t          b5144d v8::internal::(anonymous namespace)::HandleApiCallHelper<false> (/usr/bin/node)',
  '\t          b51915 v8::internal::Builtin_HandleApiCall (/usr/bin/node)',
  '\t         155e376 Builtins_CEntry_Return1_ArgvOnStack_BuiltinExit (/usr/bin/node)',
  '\t    7f2a7e20569c JS:~ChildProcess.spawn node:internal/child_process:354:40 (/tmp/perf-13416.map)',
  '\t    7f2a7e21f59c JS:~spawn node:child_process:754:15 (/tmp/perf-13416.map)',
  '\t    7f2a7e21df1c JS:~execFile node:child_process:328:18 (/tmp/perf-13416.map)',
  '\t    7f2a7e21d3dc JS:~ /work/wt-h2/dist/preload-stop.js:3925:18 (/tmp/perf-13416.map)',
  '\t    7f2a7e21d01c JS:~ node:internal/util:427:24 (/tmp/perf-13416.map)',
  '\t         15bf404 Builtins_PromiseConstructor (/usr/bin/node)',
  '\t         14cd58f Builtins_JSBuiltinsConstructStub (/usr/bin/node)',
  '\t         161ae82 Builtins_ConstructHandler (/usr/bin/node)',
  '\t    7f2a7e21cc5c JS:~fn node:internal/util:426:14 (/tmp/perf-13416.map)',
  '\t    7f2a7e20c35c JS:~isWatchmanInstalled /root/.cache/node-flame-corpus/ced63fceb35bf7b3/node_modules/jest-haste-map/build/index.js:963:35 (/tmp/perf-13416.map)',
  '\t    7f2a7e20bf9c JS:~_shouldUseWatchman /root/.cache/node-flame-corpus/ced63fceb35bf7b3/node_modules/jest-haste-map/build/index.js:3010:27 (/tmp/perf-13416.map)',
  '\t    7f2a7e20bbdc JS:~_crawl /root/.cache/node-flame-corpus/ced63fceb35bf7b3/node_modules/jest-haste-map/build/index.js:2770:15 (/tmp/perf-13416.map)',
  '\t    7f2a7e219cdc JS:~_buildFileMap /root/.cache/node-flame-corpus/ced63fceb35bf7b3/node_modules/jest-haste-map/build/index.js:2532:22 (/tmp/perf-13416.map)',
  '\t    7f2a7e21991c JS:~ /root/.cache/node-flame-corpus/ced63fceb35bf7b3/node_modules/jest-haste-map/build/index.js:2472:29 (/tmp/perf-13416.map)',
  '\t    7f2a7e21955c JS:~build /root/.cache/node-flame-corpus/ced63fceb35bf7b3/node_modules/jest-haste-map/build/index.js:2470:8 (/tmp/perf-13416.map)',
  '\t    7f2a7e197f1c JS:~ /root/.cache/node-flame-corpus/ced63fceb35bf7b3/node_modules/@jest/core/build/index.js:1476:50 (/tmp/perf-13416.map)',
  '\t         1508083 Builtins_AsyncFunctionAwaitResolveClosure (/usr/bin/node)',
  '\t         15c0df1 Builtins_PromiseFulfillReactionJob (/usr/bin/node)',
  '\t         14f7cb4 Builtins_RunMicrotasks (/usr/bin/node)',
  '\t         14ce003 Builtins_JSRunMicrotasksEntry (/usr/bin/node)',
  '\t          c4993d v8::internal::(anonymous namespace)::Invoke (/usr/bin/node)',
  '\t          c4ab6f v8::internal::Execution::TryRunMicrotasks (/usr/bin/node)',
  '\t          c7e636 v8::internal::MicrotaskQueue::RunMicrotasks (/usr/bin/node)',
  '\t          c7e9cd v8::internal::MicrotaskQueue::PerformCheckpoint (/usr/bin/node)',
  '\t          7bac1b node::InternalCallbackScope::Close (/usr/bin/node)',
  '\t          7bae31 node::InternalCallbackScope::~InternalCallbackScope (/usr/bin/node)',
  '\t          86344d node::StartExecution (/usr/bin/node)',
  '\t          7c02de node::LoadEnvironment (/usr/bin/node)',
  '\t          906a20 node::NodeMainInstance::Run (/usr/bin/node)',
  '\t          86853f node::Start (/usr/bin/node)',
  '\t           2724a __libc_start_call_main (/usr/lib/x86_64-linux-gnu/libc.so.6)',
  '',
];

/**
 * Another run of the same bench (20 more after the fix, one such sample): the same child (27343 of 27335), sampled in
 * libc's signal reset after the fork, perf's walk skipping uv_spawn: no uv_spawn on the stack.
 */
const PARENT2 = [
  'node 27335/27335 63246.298004:    1001001 cpu-clock:ppp: ',
  '\t         102f31a v8::internal::Parser::UpdateStatistics (/usr/bin/node)',
  '\t         105d2ba v8::internal::parsing::ParseFunction (/usr/bin/node)',
  '\t          bb4dbc v8::internal::Compiler::Compile (/usr/bin/node)',
  '\t          bb55ce v8::internal::Compiler::Compile (/usr/bin/node)',
  '\t         111a71a v8::internal::Runtime_CompileLazy (/usr/bin/node)',
  '\t         155e476 Builtins_CEntry_Return1_ArgvOnStack_NoBuiltinExit (/usr/bin/node)',
  '\t         14d1124 Builtins_CompileLazy (/usr/bin/node)',
  '\t    7fb4f804929c JS:~getValidStdio node:internal/child_process:985:23 (/tmp/perf-27335.map)',
  '\t    7fb4f8056adc JS:~ChildProcess.spawn node:internal/child_process:354:40 (/tmp/perf-27335.map)',
  '\t    7fb4f806a1dc JS:~spawn node:child_process:754:15 (/tmp/perf-27335.map)',
  '\t    7fb4f82e12dc JS:~execFile node:child_process:328:18 (/tmp/perf-27335.map)',
  '\t    7fb4f82e079c JS:~ /work/wt-h2/dist/preload-stop.js:3925:18 (/tmp/perf-27335.map)',
  '\t    7fb4f82e835c JS:~ node:internal/util:427:24 (/tmp/perf-27335.map)',
  '\t         15bf404 Builtins_PromiseConstructor (/usr/bin/node)',
  '\t         14cd58f Builtins_JSBuiltinsConstructStub (/usr/bin/node)',
  '\t         161ae82 Builtins_ConstructHandler (/usr/bin/node)',
  '\t    7fb4f82e7f9c JS:~fn node:internal/util:426:14 (/tmp/perf-27335.map)',
  '\t    7fb4f82e745c JS:~isWatchmanInstalled /root/.cache/node-flame-corpus/ced63fceb35bf7b3/node_modules/jest-haste-map/build/index.js:963:35 (/tmp/perf-27335.map)',
  '\t    7fb4f82ebd1c JS:~_shouldUseWatchman /root/.cache/node-flame-corpus/ced63fceb35bf7b3/node_modules/jest-haste-map/build/index.js:3010:27 (/tmp/perf-27335.map)',
  '\t    7fb4f82eb95c JS:~_crawl /root/.cache/node-flame-corpus/ced63fceb35bf7b3/node_modules/jest-haste-map/build/index.js:2770:15 (/tmp/perf-27335.map)',
  '\t    7fb4f822049c JS:~_buildFileMap /root/.cache/node-flame-corpus/ced63fceb35bf7b3/node_modules/jest-haste-map/build/index.js:2532:22 (/tmp/perf-27335.map)',
  '\t    7fb4f828ee9c JS:~ /root/.cache/node-flame-corpus/ced63fceb35bf7b3/node_modules/jest-haste-map/build/index.js:2472:29 (/tmp/perf-27335.map)',
  '\t    7fb4f828eadc JS:~build /root/.cache/node-flame-corpus/ced63fceb35bf7b3/node_modules/jest-haste-map/build/index.js:2470:8 (/tmp/perf-27335.map)',
  '\t    7fb4f81d6c5c JS:~ /root/.cache/node-flame-corpus/ced63fceb35bf7b3/node_modules/@jest/core/build/index.js:1476:50 (/tmp/perf-27335.map)',
  '\t         1508083 Builtins_AsyncFunctionAwaitResolveClosure (/usr/bin/node)',
  '\t         15c0df1 Builtins_PromiseFulfillReactionJob (/usr/bin/node)',
  '\t         14f7cb4 Builtins_RunMicrotasks (/usr/bin/node)',
  '\t         14ce003 Builtins_JSRunMicrotasksEntry (/usr/bin/node)',
  '\t          c4993d v8::internal::(anonymous namespace)::Invoke (/usr/bin/node)',
  '\t          c4ab6f v8::internal::Execution::TryRunMicrotasks (/usr/bin/node)',
  '\t          c7e636 v8::internal::MicrotaskQueue::RunMicrotasks (/usr/bin/node)',
  '\t          c7e9cd v8::internal::MicrotaskQueue::PerformCheckpoint (/usr/bin/node)',
  '\t          7bac1b node::InternalCallbackScope::Close (/usr/bin/node)',
  '\t          7bae31 node::InternalCallbackScope::~InternalCallbackScope (/usr/bin/node)',
  '\t          86344d node::StartExecution (/usr/bin/node)',
  '\t          7c02de node::LoadEnvironment (/usr/bin/node)',
  '\t          906a20 node::NodeMainInstance::Run (/usr/bin/node)',
  '\t          86853f node::Start (/usr/bin/node)',
  '\t           2724a __libc_start_call_main (/usr/lib/x86_64-linux-gnu/libc.so.6)',
  '',
];

const CHILD2 = [
  'node 27343/27343 63246.299047:    1001001 cpu-clock:ppp: ',
  '\tffffffff8158e839 filemap_map_pages ([kernel.kallsyms])',
  '\tffffffff815e6e4c do_fault ([kernel.kallsyms])',
  '\tffffffff815ee25c __handle_mm_fault ([kernel.kallsyms])',
  '\tffffffff815eea80 handle_mm_fault ([kernel.kallsyms])',
  '\tffffffff821f51c6 exc_page_fault ([kernel.kallsyms])',
  '\tffffffff81000c82 asm_exc_page_fault ([kernel.kallsyms])',
  '\t           3bee0 __bsd_signal (/usr/lib/x86_64-linux-gnu/libc.so.6)',
  '\t          9cfc24 node::(anonymous namespace)::ProcessWrap::Spawn (/usr/bin/node)',
  '\t          b50bdf v8::internal::FunctionCallbackArguments::Call (/usr/bin/node)',
  '\t          b5144d v8::internal::(anonymous namespace)::HandleApiCallHelper<false> (/usr/bin/node)',
  '\t          b51915 v8::internal::Builtin_HandleApiCall (/usr/bin/node)',
  '\t         155e376 Builtins_CEntry_Return1_ArgvOnStack_BuiltinExit (/usr/bin/node)',
  '\t    7fb4f8056adc JS:~ChildProcess.spawn node:internal/child_process:354:40 (/tmp/perf-27335.map)',
  '\t    7fb4f806a1dc JS:~spawn node:child_process:754:15 (/tmp/perf-27335.map)',
  '\t    7fb4f82e12dc JS:~execFile node:child_process:328:18 (/tmp/perf-27335.map)',
  '\t    7fb4f82e079c JS:~ /work/wt-h2/dist/preload-stop.js:3925:18 (/tmp/perf-27335.map)',
  '\t    7fb4f82e835c JS:~ node:internal/util:427:24 (/tmp/perf-27335.map)',
  '\t         15bf404 Builtins_PromiseConstructor (/usr/bin/node)',
  '\t         14cd58f Builtins_JSBuiltinsConstructStub (/usr/bin/node)',
  '\t         161ae82 Builtins_ConstructHandler (/usr/bin/node)',
  '\t    7fb4f82e7f9c JS:~fn node:internal/util:426:14 (/tmp/perf-27335.map)',
  '\t    7fb4f82e745c JS:~isWatchmanInstalled /root/.cache/node-flame-corpus/ced63fceb35bf7b3/node_modules/jest-haste-map/build/index.js:963:35 (/tmp/perf-27335.map)',
  '\t    7fb4f82ebd1c JS:~_shouldUseWatchman /root/.cache/node-flame-corpus/ced63fceb35bf7b3/node_modules/jest-haste-map/build/index.js:3010:27 (/tmp/perf-27335.map)',
  '\t    7fb4f82eb95c JS:~_crawl /root/.cache/node-flame-corpus/ced63fceb35bf7b3/node_modules/jest-haste-map/build/index.js:2770:15 (/tmp/perf-27335.map)',
  '\t    7fb4f822049c JS:~_buildFileMap /root/.cache/node-flame-corpus/ced63fceb35bf7b3/node_modules/jest-haste-map/build/index.js:2532:22 (/tmp/perf-27335.map)',
  '\t    7fb4f828ee9c JS:~ /root/.cache/node-flame-corpus/ced63fceb35bf7b3/node_modules/jest-haste-map/build/index.js:2472:29 (/tmp/perf-27335.map)',
  '\t    7fb4f828eadc JS:~build /root/.cache/node-flame-corpus/ced63fceb35bf7b3/node_modules/jest-haste-map/build/index.js:2470:8 (/tmp/perf-27335.map)',
  '\t    7fb4f81d6c5c JS:~ /root/.cache/node-flame-corpus/ced63fceb35bf7b3/node_modules/@jest/core/build/index.js:1476:50 (/tmp/perf-27335.map)',
  '\t         1508083 Builtins_AsyncFunctionAwaitResolveClosure (/usr/bin/node)',
  '\t         15c0df1 Builtins_PromiseFulfillReactionJob (/usr/bin/node)',
  '\t         14f7cb4 Builtins_RunMicrotasks (/usr/bin/node)',
  '\t         14ce003 Builtins_JSRunMicrotasksEntry (/usr/bin/node)',
  '\t          c4993d v8::internal::(anonymous namespace)::Invoke (/usr/bin/node)',
  '\t          c4ab6f v8::internal::Execution::TryRunMicrotasks (/usr/bin/node)',
  '\t          c7e636 v8::internal::MicrotaskQueue::RunMicrotasks (/usr/bin/node)',
  '\t          c7e9cd v8::internal::MicrotaskQueue::PerformCheckpoint (/usr/bin/node)',
  '\t          7bac1b node::InternalCallbackScope::Close (/usr/bin/node)',
  '\t          7bae31 node::InternalCallbackScope::~InternalCallbackScope (/usr/bin/node)',
  '\t          86344d node::StartExecution (/usr/bin/node)',
  '\t          7c02de node::LoadEnvironment (/usr/bin/node)',
  '\t          906a20 node::NodeMainInstance::Run (/usr/bin/node)',
  '\t          86853f node::Start (/usr/bin/node)',
  '\t           2724a __libc_start_call_main (/usr/lib/x86_64-linux-gnu/libc.so.6)',
  '',
];

function parse(lines: string[]): Profile {
  const p = new PerfScriptParser();
  p.push(lines.join('\n') + '\n');
  return p.end();
}

/**
 * Each stack of a thread (its level's name; none when the profile has one thread, which has no level), root first, as
 * frame names; `js` when a frame has a file.
 */
function stacksOf(p: Profile, thread?: string): { names: string[]; js: boolean }[] {
  const t = p.tree;
  const out: { names: string[]; js: boolean }[] = [];
  for (let n = 1; n < t.count; n++) {
    if (!(t.self[n] > 0)) continue;
    const names: string[] = [];
    let js = false;
    for (let m = n; m > 0; m = t.parent[m]) {
      const f = p.frames[t.frame[m]];
      names.unshift(f.name);
      js ||= f.file !== '';
    }
    if (thread === undefined) out.push({ names, js });
    else if (names[0] === `thread ${thread}`) out.push({ names: names.slice(1), js });
  }
  return out;
}

test("a forked child's sample before its exec keeps its own frames, down to uv_spawn, not its parent's JavaScript", () => {
  const p = parse([...PARENT, ...CHILD]);
  const child = stacksOf(p, 'node 13456/13456');
  assert.equal(child.length, 1);
  assert.equal(child[0].js, false);
  assert.equal(child[0].names[0], 'uv_spawn');
  assert.equal(child[0].names[1], '__GI___execve');
  assert.equal(child[0].names.at(-1), '__d_lookup_rcu');
  assert.equal(child[0].names.length, 12);
  // The parent is left as it was.
  assert.equal(stacksOf(p, 'node 13416/13416')[0].names.length, 8);
});

test("a process's own stack through uv_spawn keeps its JavaScript", () => {
  const own = CHILD.map((l) => l.replace('13456/13456', '13416/13416'));
  const [s] = stacksOf(parse([...PARENT, ...own])).filter((x) => x.js);
  assert.ok(s, 'a stack with JavaScript');
  assert.equal(s.names.length, CHILD.length - 2);
  assert.ok(s.names.includes('isWatchmanInstalled'));
});

test('JIT frames of a pid that had no samples (Node in a container: its map named by its pid in there) are kept', () => {
  const [s] = stacksOf(parse(CHILD));
  assert.equal(s.js, true);
  assert.equal(s.names.length, CHILD.length - 2);
});

test("a forked child's copy of its parent's JIT frames is named by the parent's jitdump at the sample's time", () => {
  // The load of the code at the frame's address, line 5146 of that run's jit-13416.map (2.55 ms before the sample).
  const name = 'JS:~isWatchmanInstalled /root/.cache/node-flame-corpus/ced63fceb35bf7b3/node_modules/jest-haste-map/build/index.js:963:35';
  const timed = new TimedJitMap([{ ts: 62384450151071, start: 0x7f2a7e20c280, size: 0x378, name }]);
  const namer = new JitFrameNamer(new Map([[13416, { timed }]]));
  const frame = CHILD.find((l) => l.startsWith('\t    7f2a7e20c35c'))!;
  const text = ['# clockid: monotonic (1)', CHILD[0], frame.replace(/ JS:~.*? \(/, ' [unknown] ('), ''].join('\n');
  const out = Buffer.concat([namer.push(Buffer.from(text)), namer.end()]).toString();
  assert.equal(out.split('\n')[2], frame);
  assert.equal(namer.stats.timed, 1);
});

test('without uv_spawn on the stack, the forked child is cut at its first JIT frame of the parent', () => {
  const child = stacksOf(parse([...PARENT2, ...CHILD2]), 'node 27343/27343');
  assert.equal(child.length, 1);
  assert.equal(child[0].js, false);
  assert.equal(child[0].names[0], 'Builtins_CEntry_Return1_ArgvOnStack_BuiltinExit');
  assert.equal(child[0].names.at(-1), 'filemap_map_pages');
  assert.equal(child[0].names.length, 12);
});
