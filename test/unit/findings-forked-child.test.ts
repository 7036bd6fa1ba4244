// perf samples a child Node forks for a shell, before its exec, with its parent's stack down to uv_spawn (lines as this
// machine's `perf script` printed them, test findings-not-node's app, a run where the shell got two Node findings).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PerfScriptParser } from '../../src/core/importers/perf';
import { notNode } from '../../src/core/findings';

const PRE_EXEC = [
  'node   815/815   47942.200265:    1001001 cpu-clock:ppp: ',
  '\tffffffff8134515f flush_tlb_mm_range ([kernel.kallsyms])',
  '\tffffffff81000c82 asm_exc_page_fault ([kernel.kallsyms])',
  '\t         14b64e5 uv_spawn (/usr/bin/node)',
  '\t          9d3f6c node::SyncProcessRunner::TryInitializeAndRunLoop (/usr/bin/node)',
  '\t          9d4278 node::SyncProcessRunner::Spawn (/usr/bin/node)',
  '\t          b51915 v8::internal::Builtin_HandleApiCall (/usr/bin/node)',
  '\t         155e376 Builtins_CEntry_Return1_ArgvOnStack_BuiltinExit (/usr/bin/node)',
  '\t    7f334b04fddc [unknown] (/tmp/perf-807.map)',
  '\t         14ce0dc Builtins_JSEntryTrampoline (/usr/bin/node)',
  '\t         14cde03 Builtins_JSEntry (/usr/bin/node)',
  '\t          86853f node::Start (/usr/bin/node)',
  '',
];
const SHELL = [
  'sh   815/815   47943.004497:    1001001 cpu-clock:ppp: ',
  '\t            9d55 [unknown] (/usr/bin/dash)',
  '\t            9e57 [unknown] (/usr/bin/dash)',
  '',
  'sh   815/815   47943.005501:    1001001 cpu-clock:ppp: ',
  '\t          16713e __strcmp_evex (/usr/lib/x86_64-linux-gnu/libc.so.6)',
  '',
];
const PARSING = [
  'node   807/807   47941.565924:    1001001 cpu-clock:ppp: ',
  '\t         1063eb1 v8::internal::ExpressionScope<v8::internal::ParserTypes<v8::internal::PreParser> >::NewVariable (/usr/bin/node)',
  '\t          b130b7 v8::ScriptCompiler::CompileFunction (/usr/bin/node)',
  '\t         14ce0dc Builtins_JSEntryTrampoline (/usr/bin/node)',
  '\t          86853f node::Start (/usr/bin/node)',
  '',
];

function parse(lines: string[]) {
  const p = new PerfScriptParser();
  p.push(lines.join('\n') + '\n');
  return p.end();
}

test('a forked child sampled before its exec, its parent stack down to uv_spawn, is not taken for Node', () => {
  assert.equal(notNode(parse([...PRE_EXEC, ...SHELL])), true);
  assert.equal(notNode(parse(SHELL)), true);
});

test('a Node process is Node, with or without samples in uv_spawn', () => {
  assert.equal(notNode(parse(PARSING)), false);
  assert.equal(notNode(parse([...PARSING, ...PRE_EXEC.map((l) => l.replace('815/815', '807/807'))])), false);
});
