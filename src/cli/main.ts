import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as l10n from '@vscode/l10n';
import { printable } from '../core/chars';
import { UnsafeRegexError } from '../core/model/transforms';
import { configureCliLocale } from './locale';
import { commandHelp, mainHelp, type CliCommand } from './args';
import { ProfileError } from '../core/model';

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
