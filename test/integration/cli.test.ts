// The CLI's own words: help for the program and for each command, the version, and usage mistakes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, repoRoot } from '../helpers/paths';
import { PROFILE } from '../../src/cli/profile';
import { REPORT } from '../../src/cli/report';
import { DIFF } from '../../src/cli/diff';
import type { CliOption } from '../../src/cli/args';

const COMMANDS = [PROFILE, REPORT, DIFF];
const version = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;

function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', env: { ...process.env, NODE_FLAME_LANG: 'en', ...env } });
}

test('cli rejects unknown commands with exit 2 and lists the commands', () => {
  const r = run(['frobnicate']);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /unknown command "frobnicate"/);
  for (const c of COMMANDS) assert.match(r.stderr, new RegExp(`^  ${c.name} +\\S`, 'm'));
});

test('node-flame --help and -h: exit 0, one line per command, the version option', () => {
  for (const flag of ['--help', '-h', 'help']) {
    const r = run([flag]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, '');
    assert.match(r.stdout, /^usage: node-flame <command> \[options\]/);
    for (const c of COMMANDS) assert.match(r.stdout, new RegExp(`^  ${c.name} +${escape(c.summary())}$`, 'm'), `${flag}: ${c.name}`);
    assert.match(r.stdout, /^ {2}-v, --version +\S/m);
  }
  // With nothing to do, the same list goes to stderr and the exit code says it was a mistake.
  const none = run([]);
  assert.equal(none.status, 2);
  assert.match(none.stderr, /^ {2}report +\S/m);
});

test('node-flame <command> --help: exit 0, usage line, every option of the command on one line', () => {
  for (const c of COMMANDS) {
    for (const args of [
      [c.name, '--help'],
      [c.name, '-h'],
      ['help', c.name],
    ]) {
      const r = run(args);
      assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stderr, '');
      assert.match(r.stdout, new RegExp(`^usage: node-flame ${c.name} \\[options\\]`));
      const lines = r.stdout.split('\n');
      const rows: Record<string, CliOption> = { ...c.options, help: { type: 'boolean', short: 'h', help: () => 'show this help' } };
      for (const [name, o] of Object.entries(rows)) {
        const start = `  ${o.short ? `-${o.short}, ` : '    '}--${name} `;
        const mine = lines.filter((l) => l.startsWith(start));
        assert.equal(mine.length, 1, `${args.join(' ')}: one line for --${name}`);
        assert.ok(mine[0].includes(o.help()), `${args.join(' ')}: --${name} says what it does`);
      }
    }
  }
  // Options people look for, in case a table loses them.
  assert.match(
    run(['report', '--help']).stdout,
    /--format <format> +one of: text, json, markdown, folded, cpuprofile, speedscope, html, svg, pprof \(default: text\)/,
  );
  assert.match(run(['diff', '--help']).stdout, /-o, --output <file> +write to this file/);
  assert.match(run(['profile', '--help']).stdout, /-m, --mode <mode> +prof .*\(default: prof\)/);
  // --help wins over a mistake beside it, and a help after "--" belongs to the app, not to profile.
  assert.equal(run(['report', '--bogus', '--help']).status, 0);
  const app = run(['profile', '--frobnicate', '--', 'node', 'app.js', '--help']);
  assert.equal(app.status, 2);
  assert.match(app.stderr, /unknown option "--frobnicate"/);
});

test('node-flame --version and -v print the version in package.json', () => {
  for (const flag of ['--version', '-v']) {
    const r = run([flag]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, `${version}\n`);
  }
});

test('usage mistakes: exit 2 with one line naming the mistake, never a stack', () => {
  const cases: [string[], RegExp][] = [
    [['diff', '--bogus', 'a', 'b'], /^node-flame diff: unknown option "--bogus" \(/],
    [['report', '--bogus', 'x'], /^node-flame report: unknown option "--bogus" \(/],
    [['profile', '--bogus', '--', 'node', 'x.js'], /^node-flame profile: unknown option "--bogus" \(/],
    [['report', 'x', '-o'], /^node-flame report: option "-o" needs a value \(/],
    [['report', 'x', '--no-source-maps=yes'], /^node-flame report: option "--no-source-maps" takes no value \(/],
    [['report'], /^node-flame report: give one profile file \(/],
    [['diff', 'a'], /^node-flame diff: give two profiles \(files or run folders\), before and after \(/],
    [['profile', '--port', 'abc', '--', 'node', 'x.js'], /^node-flame profile: --port needs a positive number, got "abc" \(/],
  ];
  for (const [args, line] of cases) {
    const r = run(args);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, line);
    assert.match(r.stderr, new RegExp(`"node-flame ${args[0]} --help" lists the options`));
    assert.equal(r.stderr.split('\n').filter(Boolean).length, 1, `one line: ${r.stderr}`);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  }
});

test('help and usage mistakes are in the terminal language', () => {
  const ja = JSON.parse(readFileSync(join(repoRoot, 'l10n', 'bundle.l10n.ja.json'), 'utf8')) as Record<string, string>;
  const help = run(['report', '--help'], { NODE_FLAME_LANG: 'ja' });
  assert.equal(help.status, 0);
  assert.ok(help.stdout.includes(ja['Options:']), help.stdout);
  assert.ok(help.stdout.includes(ja['write to this file instead of standard output']), help.stdout);
  const bad = run(['diff', '--bogus'], { LANG: 'ja_JP.UTF-8', NODE_FLAME_LANG: '' });
  assert.equal(bad.status, 2);
  assert.ok(bad.stderr.includes(ja['unknown option "{0}"'].replace('{0}', '--bogus')), bad.stderr);
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
