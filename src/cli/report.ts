import { writeFile } from 'node:fs/promises';
import * as l10n from '@vscode/l10n';
import { exportFormats, exportProfileData } from '../core/exporters';
import { applyTransforms, unmatched } from '../core/model/transforms';
import { parseCommand, usageError, type CliCommand } from './args';
import { isRunFolder, loadRunProfile } from '../launch/runProfile';
import { runTimeFacts } from '../launch/runTimeline';
import { fileStartTime, loadForCli, parseLabel } from './load';
import { TRANSFORM_OPTIONS, transformsFrom } from './transforms';

export const REPORT = {
  name: 'report',
  args: '<file | run folder>',
  summary: () => l10n.t('read a profile (tick log, perf.data, perf script, .cpuprofile, pprof, folded) and print or export a report'),
  options: {
    format: { type: 'string', short: 'f', default: 'text', value: 'format', help: () => l10n.t('one of: {0}', exportFormats().join(', ')) },
    top: {
      type: 'string',
      short: 'n',
      value: 'N',
      help: () => l10n.t('keep the N heaviest functions (json: 50 when not given; text: all)'),
    },
    output: { type: 'string', short: 'o', value: 'file', help: () => l10n.t('write to this file instead of standard output') },
    'no-source-maps': { type: 'boolean', help: () => l10n.t('do not map JavaScript frames through source maps') },
    pid: {
      type: 'string',
      value: 'N',
      help: () => l10n.t('run folder: report only this process (default: every process of the run, merged)'),
    },
    'sample-type': {
      type: 'string',
      value: 'type',
      help: () =>
        l10n.t("pprof: the sample type to weigh by (cpu, wall, alloc_space, inuse_objects, …); default: the file's default, else its last"),
    },
    label: {
      type: 'string',
      value: 'key=value',
      help: () => l10n.t('pprof: keep only the samples with this label value (e.g. "thread name=Main Event Loop")'),
    },
    ...TRANSFORM_OPTIONS,
  },
} satisfies CliCommand;

/** An option's whole number ≥ 1; undefined when absent, null when it is something else. */
function wholeNumber(v: string | undefined): number | undefined | null {
  if (v === undefined) return undefined;
  const n = Number(v);
  return Number.isInteger(n) && n >= 1 ? n : null;
}

export async function runReport(argv: string[]): Promise<number> {
  const formats = exportFormats();
  const parsed = parseCommand(REPORT, argv);
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  if (positionals.length !== 1) return usageError(REPORT, l10n.t('give one profile file'));
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
  const labels = parseLabel(values.label);
  if (values.label !== undefined && !labels) return usageError(REPORT, l10n.t('--label wants key=value, not "{0}"', values.label));
  const transforms = transformsFrom(parsed.order);
  if (typeof transforms === 'string') return usageError(REPORT, transforms);
  const [file] = positionals;
  // A run folder is read whole: every process's profile, merged.
  const sourceMaps = !values['no-source-maps'];
  const loaded = isRunFolder(file)
    ? await loadRunProfile(file, { sourceMaps, pid })
    : await loadForCli(file, { sourceMaps, sampleType: values['sample-type'], labels });
  for (const w of loaded.warnings) process.stderr.write(l10n.t('node-flame: warning: {0}', w) + '\n');
  for (const t of transforms)
    for (const name of unmatched(loaded.frames, t))
      process.stderr.write(l10n.t('node-flame: warning: no function or package named "{0}" in this profile', name) + '\n');
  const profile = applyTransforms(loaded, transforms);
  const out = exportProfileData(profile, format, {
    top,
    source: file,
    startTime: format === 'pprof' ? await fileStartTime(file, profile) : undefined,
    timeFacts: format === 'html' ? await runTimeFacts(file).catch(() => undefined) : undefined,
  });
  if (!values.output) {
    process.stdout.write(out);
    return 0;
  }
  try {
    await writeFile(values.output, out);
  } catch (e) {
    process.stderr.write(
      l10n.t('node-flame report: cannot write {0}: {1}', values.output, (e as NodeJS.ErrnoException).code ?? (e as Error).message) + '\n',
    );
    return 2;
  }
  return 0;
}
