// Which native code perf mode says ran without its own frame pointer (src/core/importers/perf/framePointers.ts), from
// the bytes a function opens with; and the build-id that ties a library file to a recording.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readyAtIn } from '../../src/core/importers/perf/framePointers';
import { readElfLayout } from '../../src/core/symbols';

const bytes = (hex: string) => Buffer.from(hex.replace(/\s+/g, ''), 'hex');
const PAD = '90'.repeat(120);

test('readyAtIn: where a function has set its frame pointer, or -1 for none', () => {
  // push %rbp; mov %rsp,%rbp (node::Metadata::Metadata)
  assert.equal(readyAtIn(bytes('55 4889e5 53' + PAD)), 4);
  // endbr64 first
  assert.equal(readyAtIn(bytes('f30f1efa 55 4889e5' + PAD)), 8);
  // an instruction scheduled between (xor %esi,%esi), and the other encoding of the move
  assert.equal(readyAtIn(bytes('55 31f6 488bec' + PAD)), 6);
  // ieee754::log: movq %xmm0,%rax …, no push
  assert.equal(readyAtIn(bytes('66480f7ec0 66480f7ec2' + PAD)), -1);
  // push %rbp saved as any register (push %rbp; push %rbx; no move)
  assert.equal(readyAtIn(bytes('55 53 4883ec08' + PAD)), -1);
  // shrink-wrapped: a check and an early exit, the frame 28 bytes in (Scheduler::ScheduleEarly's shape)
  const early = '488b87e8000000 0fb61500000000 488b4830 48394828 0f8400000000';
  const at = bytes(early).length;
  assert.equal(readyAtIn(bytes(early + '55 4889e5' + PAD)), at + 4);
  // a frame set up only far into the function (a slow path): frameless at its start
  assert.equal(readyAtIn(bytes('4889ef' + '90'.repeat(200) + '55 4889e5' + PAD)), -1);
});

test("readElfLayout: this node binary's build-id is the one readelf prints (perf buildid-list's)", async (t) => {
  const r = spawnSync('readelf', ['-n', process.execPath], { encoding: 'utf8' });
  const id = /Build ID: ([0-9a-f]+)/.exec(r.stdout ?? '')?.[1];
  if (!id) return t.skip('readelf not here, or the binary has no build-id note');
  assert.equal((await readElfLayout(process.execPath))?.buildId, id);
});
