// One CLI vocabulary: an option word means one thing in every command that has it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PROFILE } from '../../src/cli/profile';
import { ATTACH } from '../../src/cli/attach';
import { REPORT } from '../../src/cli/report';
import { DIFF } from '../../src/cli/diff';
import type { CliCommand, CliOption } from '../../src/cli/args';

const COMMANDS: CliCommand[] = [PROFILE, ATTACH, REPORT, DIFF];

test('every option name has one type, one short letter and one value name across the commands; every short letter one name', () => {
  const byName = new Map<string, { cmd: string; o: CliOption }[]>();
  const byShort = new Map<string, Set<string>>();
  for (const c of COMMANDS)
    for (const [name, o] of Object.entries(c.options)) {
      byName.set(name, [...(byName.get(name) ?? []), { cmd: c.name, o }]);
      if (o.short) byShort.set(o.short, new Set([...(byShort.get(o.short) ?? []), name]));
    }
  let shared = 0;
  for (const [name, uses] of byName) {
    if (uses.length < 2) continue;
    shared++;
    const [first] = uses;
    for (const u of uses.slice(1)) {
      const where = `--${name} in ${first.cmd} and ${u.cmd}`;
      assert.equal(u.o.type, first.o.type, `${where}: one type`);
      assert.equal(u.o.short, first.o.short, `${where}: one short letter`);
      assert.equal(u.o.value, first.o.value, `${where}: one value name`);
      assert.equal(u.o.multiple, first.o.multiple, `${where}: repeatable in both or neither`);
    }
  }
  for (const [short, names] of byShort) assert.equal(names.size, 1, `-${short} means ${[...names].join(' and ')}`);
  assert.ok(shared >= 10, `the commands share their report, transform and source-map options (${shared} shared)`);
});

test('-o is --output (a file) everywhere; profile takes the report options a report command takes', () => {
  for (const c of COMMANDS) {
    const o = Object.entries(c.options).find(([, x]) => x.short === 'o');
    assert.deepEqual(o?.[0], 'output', `${c.name}: -o`);
  }
  for (const name of ['format', 'top', 'output', 'focus', 'drop', 'from', 'to', 'all-processes'])
    assert.ok(name in PROFILE.options, `profile --${name}`);
  for (const name of ['format', 'top', 'output', 'focus', 'from'])
    assert.ok(name in ATTACH.options && name in REPORT.options, `attach and report --${name}`);
});
