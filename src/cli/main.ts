import { setFlagsFromString } from 'node:v8';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as l10n from '@vscode/l10n';
import { printable } from '../core/chars';
import { UnsafeRegexError } from '../core/model/transforms';
import { configureCliLocale } from './locale';
import { commandHelp, mainHelp, type CliCommand } from './args';
import { ProfileError } from '../core/model';

// A big import builds its caches early; V8 counts those survivors as a reason to grow the young
// generation to its 16 MiB maximum, which this short-lived process never needs again. Keeping it at
// its start size cut peak RSS on an 80 MB tick log from ~110 to ~85 MB without costing time. Tick logs let it grow
// again (load.ts): on a slower machine and real logs, that saved 9–14 % of the CPU.
setFlagsFromString('--semi-space-growth-factor=1');
// V8 optimizes a function once it has run for its interrupt budget (67 584 bytecode bytes by default). A report's
// code is hot for well under a second, and at the default it was optimized before its paths had run: on tsc's tick log
// the callers' stack builder was compiled five times, most compiles bailing out for want of type feedback, and those
// compiles were most of the CPU of V8's background threads. Six times the budget: V8 threads 0.95-1.03 -> 0.61-0.68 s
// CPU on that log, prettier's log 0.84 -> 0.63 s CPU in all (median), an 80 MB synthetic log not slower (1.48 -> 1.36 s).
// The CLI's process only: flags are process-wide, and the editor's import worker runs in VS Code's extension host.
setFlagsFromString('--interrupt-budget=400000');
// TurboFan inlines callees into an optimized function up to 920 bytecode bytes in all by default. A report's hot
// functions are scanner loops with many small helpers, and the compiles those inlines made were most of V8's background
// CPU: on a 30 MB Chrome trace ~150 of its ~550 ms (the scanner's `feed` took 27 ms to compile, a tree walk 4 x 8 ms).
// A third of the budget: that trace 563 -> 532 ms CPU, a 120 MB one 1235 -> 1216, a 32 MB .cpuprofile 370 -> 353,
// speedscope 30 MB 437 -> 395, perf script 20 MB 251 -> 240, a 20 MB tick log 308 -> 300 (medians, alternated runs).
setFlagsFromString('--max-inlined-bytecode-size-cumulative=300');
configureCliLocale();

interface Command {
  spec: CliCommand;
  run(argv: string[]): Promise<number>;
}
// Each command's module is loaded only when it runs (or for --help): `report FILE` then skips the launcher's and the
// inspector's code and the builtins they pull in (child_process, net, http, worker_threads…).
const COMMANDS: { name: string; load(): Promise<Command> }[] = [
  { name: 'profile', load: async () => import('./profile').then((m) => ({ spec: m.PROFILE, run: m.runProfile })) },
  { name: 'attach', load: async () => import('./attach').then((m) => ({ spec: m.ATTACH, run: m.runAttach })) },
  { name: 'report', load: async () => import('./report').then((m) => ({ spec: m.REPORT, run: m.runReport })) },
  { name: 'diff', load: async () => import('./diff').then((m) => ({ spec: m.DIFF, run: m.runDiff })) },
];
const help = async () => mainHelp((await Promise.all(COMMANDS.map((c) => c.load()))).map((c) => c.spec));

/** The version in the package.json beside dist/ (the repository's, or the installed package's). */
function version(): string {
  return (JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
}

async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  const command = COMMANDS.find((c) => c.name === cmd);
  if (command) return (await command.load()).run(rest);
  switch (cmd) {
    case '--version':
    case '-v':
      process.stdout.write(version() + '\n');
      return 0;
    case '--help':
    case '-h':
      process.stdout.write(await help());
      return 0;
    case 'help': {
      // `node-flame help report` reads like `node-flame report --help`.
      const of = COMMANDS.find((c) => c.name === rest[0]);
      process.stdout.write(of ? commandHelp((await of.load()).spec) : await help());
      return 0;
    }
    case undefined:
      process.stderr.write(await help());
      return 2;
    default:
      process.stderr.write(l10n.t('node-flame: unknown command "{0}"', cmd) + '\n' + (await help()));
      return 2;
  }
}

// `node-flame report x | head` closes the pipe early: that is the reader being done, not an error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    // Bad input is the user's problem to fix, so it gets one line, not a stack trace.
    if (e instanceof ProfileError) {
      process.stderr.write(`node-flame: ${e.file ? printable(e.file) + ': ' : ''}${printable(e.message)}\n`);
      process.exitCode = 2;
    } else if (e instanceof UnsafeRegexError) {
      // An --exclude pattern that passed the shape rules but ran over the time budget on these names.
      process.stderr.write(`node-flame: ${printable(e.message)}\n`);
      process.exitCode = 2;
    } else {
      process.stderr.write(`node-flame: ${(e as Error)?.stack ?? String(e)}\n`);
      process.exitCode = 1;
    }
  },
);
