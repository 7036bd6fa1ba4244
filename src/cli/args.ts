import { parseArgs } from 'node:util';
import * as l10n from '@vscode/l10n';

/** One row of a command's option table: what `parseArgs` needs, plus its line in `--help`. */
export interface CliOption {
  type: 'string' | 'boolean';
  short?: string;
  default?: string | boolean;
  /** The value's name in help (`--top <N>`); strings only. */
  value?: string;
  /** May be given more than once: the value is then an array, and `Parsed.order` keeps where each came. */
  multiple?: boolean;
  /** A function, so the text is translated after the locale is set (tables are built at import). */
  help(): string;
}

export type OptionTable = Record<string, CliOption>;

export interface CliCommand<T extends OptionTable = OptionTable> {
  name: string;
  /** What follows `node-flame <name> [options]`: the positionals, in command-line syntax. */
  args: string;
  /** The command's line in `node-flame --help`. */
  summary(): string;
  /** Paragraphs shown under the usage line of `node-flame <name> --help`. */
  details?(): string;
  options: T;
}

export type CliValues<T extends OptionTable> = {
  [K in keyof T]?: T[K]['type'] extends 'boolean' ? boolean : T[K]['multiple'] extends true ? string[] : string;
};

export interface Parsed<T extends OptionTable> {
  values: CliValues<T>;
  positionals: string[];
  /** Every option as given, in command-line order (options whose order matters, like transforms, read this). */
  order: { name: string; value?: string }[];
}

const HELP: CliOption = { type: 'boolean', short: 'h', help: () => l10n.t('show this help') };

function withHelp(options: OptionTable): OptionTable {
  return { ...options, help: HELP };
}

/** `-f, --format <format>`, with room for a missing short name so long names line up. */
function optionSyntax(name: string, o: CliOption): string {
  const short = o.short ? `-${o.short}, ` : '    ';
  return `${short}--${name}${o.type === 'string' ? ` <${o.value ?? 'value'}>` : ''}`;
}

/** Left column padded to one width; one line per row. */
function table(rows: [string, string][]): string {
  const width = Math.max(...rows.map(([l]) => l.length)) + 3;
  return rows.map(([l, r]) => `  ${l.padEnd(width)}${r}`).join('\n');
}

export function synopsis(cmd: CliCommand): string {
  return `node-flame ${cmd.name} [options]${cmd.args ? ' ' + cmd.args : ''}`;
}

/** `node-flame <command> --help`: usage, what it does, one line per option. */
export function commandHelp(cmd: CliCommand): string {
  const rows = Object.entries(withHelp(cmd.options)).map(([name, o]): [string, string] => {
    const text = o.help();
    return [optionSyntax(name, o), typeof o.default === 'string' ? l10n.t('{0} (default: {1})', text, o.default) : text];
  });
  const parts = [l10n.t('usage: {0}', synopsis(cmd)), cmd.summary()];
  if (cmd.details) parts.push(cmd.details());
  parts.push(l10n.t('Options:') + '\n' + table(rows));
  return parts.join('\n\n') + '\n';
}

/** `node-flame --help`: the commands, one line each, and the options that come before any command. */
export function mainHelp(commands: CliCommand[]): string {
  return (
    [
      l10n.t('usage: {0}', 'node-flame <command> [options]'),
      l10n.t('Commands:') + '\n' + table(commands.map((c) => [c.name, c.summary()])),
      l10n.t('Options:') +
        '\n' +
        table([
          ['-h, --help', l10n.t('show this help')],
          ['-v, --version', l10n.t('print the version of node-flame')],
        ]),
      l10n.t('"{0}" lists the options of a command.', 'node-flame <command> --help'),
    ].join('\n\n') + '\n'
  );
}

/** Prints a usage problem the way every command does: one line naming it and where help is; exit code 2. */
export function usageError(cmd: CliCommand, message: string): number {
  process.stderr.write(`node-flame ${cmd.name}: ${message} (${l10n.t('"{0}" lists the options.', `node-flame ${cmd.name} --help`)})\n`);
  return 2;
}

/** The problem with one option word, or undefined when the table accepts it. */
function optionProblem(
  options: OptionTable,
  token: { name: string; rawName: string; value?: string; inlineValue?: boolean },
): string | undefined {
  const o = options[token.name];
  if (!o) return l10n.t('unknown option "{0}"', token.rawName);
  if (o.type === 'string' && token.value === undefined) return l10n.t('option "{0}" needs a value', token.rawName);
  if (o.type === 'boolean' && token.inlineValue) return l10n.t('option "{0}" takes no value', token.rawName);
  return undefined;
}

/**
 * Parses a command's words against its option table. `--help` (anywhere) prints the command's help and
 * gives exit code 0; a word the table does not allow prints one line and gives 2. Otherwise the values.
 */
export function parseCommand<T extends OptionTable>(cmd: CliCommand<T>, argv: string[]): Parsed<T> | number {
  const options = withHelp(cmd.options);
  // A lenient pass first, so `--help` wins over any mistake beside it and each mistake gets its own words.
  const { tokens } = parseArgs({ args: argv, options, strict: false, allowPositionals: true, tokens: true });
  if (tokens.some((t) => t.kind === 'option' && t.name === 'help')) {
    process.stdout.write(commandHelp(cmd));
    return 0;
  }
  for (const t of tokens) {
    const problem = t.kind === 'option' ? optionProblem(options, t) : undefined;
    if (problem) return usageError(cmd, problem);
  }
  try {
    const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true });
    const order = tokens.flatMap((t) => (t.kind === 'option' ? [{ name: t.name, value: t.value }] : []));
    return { values: values as CliValues<T>, positionals, order };
  } catch (e) {
    return usageError(cmd, (e as Error).message.split('\n')[0]);
  }
}
