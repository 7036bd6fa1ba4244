import { parseArgs } from 'node:util';
import { writeFile } from 'node:fs/promises';
import * as l10n from '@vscode/l10n';
import { loadProfile } from '../core/importers';
import { diffFunctions } from '../core/model';
import { diffToHtml, diffToJson, diffToText } from '../core/exporters/diff';

const FORMATS = ['text', 'json', 'html'] as const;

export async function runDiff(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { format: { type: 'string', short: 'f', default: 'text' }, output: { type: 'string', short: 'o' }, top: { type: 'string', default: '50' } },
  });
  const format = values.format as (typeof FORMATS)[number];
  if (positionals.length !== 2) {
    process.stderr.write(l10n.t('usage: node-flame diff <before> <after> [--format text|json|html] [-o out]') + '\n');
    return 2;
  }
  if (!FORMATS.includes(format)) {
    process.stderr.write(l10n.t('node-flame diff: unknown format "{0}" (use one of: {1})', String(values.format), FORMATS.join(', ')) + '\n');
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
