import { writeFile } from 'node:fs/promises';
import * as l10n from '@vscode/l10n';
import { loadProfile } from '../core/importers';
import { diffFunctions } from '../core/model';
import { diffToHtml, diffToJson, diffToText } from '../core/exporters/diff';
import { parseCommand, usageError, type CliCommand } from './args';

const FORMATS = ['text', 'json', 'html'] as const;

export const DIFF = {
  name: 'diff',
  args: '<before> <after>',
  summary: () => l10n.t('compare two profiles (any formats): the functions whose share of the time changed most'),
  options: {
    format: { type: 'string', short: 'f', default: 'text', value: 'format', help: () => l10n.t('one of: {0}', FORMATS.join(', ')) },
    top: { type: 'string', short: 'n', default: '50', value: 'N', help: () => l10n.t('list the N largest changes (text and json)') },
    output: { type: 'string', short: 'o', value: 'file', help: () => l10n.t('write to this file instead of standard output') },
  },
} satisfies CliCommand;

export async function runDiff(argv: string[]): Promise<number> {
  const parsed = parseCommand(DIFF, argv);
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const format = (values.format ?? 'text') as (typeof FORMATS)[number];
  if (positionals.length !== 2) return usageError(DIFF, l10n.t('give two profile files, before and after'));
  if (!FORMATS.includes(format)) {
    process.stderr.write(l10n.t('node-flame diff: unknown format "{0}" (use one of: {1})', format, FORMATS.join(', ')) + '\n');
    return 2;
  }
  const top = Math.max(1, Number(values.top) || 50);
  const [bp, ap] = positionals;
  const [before, after] = await Promise.all([loadProfile(bp), loadProfile(ap)]);
  const changes = diffFunctions(before, after);
  const out =
    format === 'json' ? JSON.stringify(diffToJson(changes, top), null, 2) + '\n' : format === 'html' ? diffToHtml(before, after, bp, ap) : diffToText(changes, bp, ap, top);
  if (values.output) await writeFile(values.output, out);
  else process.stdout.write(out);
  return 0;
}
