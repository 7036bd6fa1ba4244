import { parseArgs } from 'node:util';
import { writeFile } from 'node:fs/promises';
import * as l10n from '@vscode/l10n';
import { loadProfile } from '../core/importers';
import { exportFormats, exportProfile } from '../core/exporters';
import { isRunFolder, loadRunProfile } from '../launch/runProfile';

function usage(formats: string[]): string {
  return l10n.t('usage: node-flame report <file or run folder> [--format {0}] [--top N] [--pid N] [-o out] [--no-source-maps]', formats.join('|'));
}

/** An option's whole number ≥ 1; undefined when absent, null when it is something else. */
function wholeNumber(v: string | undefined): number | undefined | null {
  if (v === undefined) return undefined;
  const n = Number(v);
  return Number.isInteger(n) && n >= 1 ? n : null;
}

export async function runReport(argv: string[]): Promise<number> {
  const formats = exportFormats();
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        format: { type: 'string', short: 'f', default: 'text' },
        top: { type: 'string', short: 'n' },
        output: { type: 'string', short: 'o' },
        'no-source-maps': { type: 'boolean', default: false },
        pid: { type: 'string' },
      },
    });
  } catch (e) {
    process.stderr.write(`node-flame report: ${(e as Error).message.split('\n')[0]}\n` + usage(formats) + '\n');
    return 2;
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1) {
    process.stderr.write(usage(formats) + '\n');
    return 2;
  }
  const format = values.format ?? 'text';
  if (!formats.includes(format)) {
    process.stderr.write(l10n.t('node-flame report: unknown format "{0}" (use one of: {1})', format, formats.join(', ')) + '\n');
    return 2;
  }
  const top = wholeNumber(values.top);
  if (top === null) {
    process.stderr.write(l10n.t('node-flame report: --top wants a whole number of 1 or more, not "{0}"', values.top!) + '\n');
    return 2;
  }
  const pid = wholeNumber(values.pid);
  if (pid === null) {
    process.stderr.write(l10n.t('node-flame report: --pid wants a process id, not "{0}"', values.pid!) + '\n');
    return 2;
  }
  const [file] = positionals;
  // A run folder is read whole: every process's profile, merged.
  const profile = isRunFolder(file) ? await loadRunProfile(file, { sourceMaps: !values['no-source-maps'], pid }) : await loadProfile(file, { sourceMaps: !values['no-source-maps'] });
  for (const w of profile.warnings) process.stderr.write(l10n.t('node-flame: warning: {0}', w) + '\n');
  const out = exportProfile(profile, format, { top, source: file });
  if (!values.output) {
    process.stdout.write(out);
    return 0;
  }
  try {
    await writeFile(values.output, out);
  } catch (e) {
    process.stderr.write(l10n.t('node-flame report: cannot write {0}: {1}', values.output, (e as NodeJS.ErrnoException).code ?? (e as Error).message) + '\n');
    return 2;
  }
  return 0;
}
