import { writeFile } from 'node:fs/promises';
import * as l10n from '@vscode/l10n';
import { printable } from '../core/chars';
import { exportFormats, exportProfileData } from '../core/exporters';
import type { FunctionSort } from '../core/exporters/json';
import type { Profile } from '../core/model';
import { applyTransforms, unmatched } from '../core/model/transforms';
import { routeFilter } from './routes';
import { parseCommand, usageError, type CliCommand, type OptionTable } from './args';
import { loadProfileOrRun } from '../launch/run/openPath';
import type { OpenedRun } from '../launch/run/runFolder';
import { runTimeFactsOf } from '../launch/run/runTimeline';
import { fileStartTime, growYoungGenerationForProfRuns, loadForCli, parseLabel, sourceLineReader } from './load';
import { TRANSFORM_OPTIONS, transformsFrom, type CliView } from './transforms';
import { SOURCE_MAP_OPTIONS, sourceMapOptionsFrom } from './sourceMapFlags';

/** How a report is written: the rows shared by `report` and the commands that report what they recorded. */
export const OUTPUT_OPTIONS = {
  format: { type: 'string', short: 'f', default: 'text', value: 'format', help: () => l10n.t('one of: {0}', exportFormats().join(', ')) },
  top: {
    type: 'string',
    short: 'n',
    value: 'N',
    help: () =>
      l10n.t(
        'keep the N functions heaviest by self weight (json: 50 when not given, its functionCount says how many there are; text: all)',
      ),
  },
  sort: {
    type: 'string',
    value: 'self|total',
    help: () =>
      l10n.t(
        'json: order the functions, and keep the --top of them, by self weight (default) or by total weight (with their callees: a function whose time is all in what it calls)',
      ),
  },
  output: { type: 'string', short: 'o', value: 'file', help: () => l10n.t('write to this file instead of standard output') },
  'folded-weights': {
    type: 'string',
    value: 'samples|period',
    help: () => l10n.t("folded: weigh stacks by sample counts (default) or by perf's sample periods (ns of cpu-clock)"),
  },
} satisfies OptionTable;

/** `--all-processes`: the run folder's wrappers (npm, nodemon) stay in the shares. */
export const ALL_PROCESSES = {
  type: 'boolean',
  help: () => l10n.t('run folder: keep the processes that only waited for their children (npm, npx, nodemon) in the shares'),
} satisfies OptionTable[string];

export const REPORT = {
  name: 'report',
  args: '<file | run folder>',
  summary: () =>
    l10n.t(
      'read a profile (tick log, perf.data, perf script, .cpuprofile, pprof, folded, Chrome trace, speedscope) and print or export a report',
    ),
  options: {
    ...OUTPUT_OPTIONS,
    'no-source-maps': { type: 'boolean', help: () => l10n.t('do not map JavaScript frames through source maps') },
    pid: {
      type: 'string',
      value: 'N',
      help: () => l10n.t('run folder: report only this process (default: every process of the run, merged)'),
    },
    'all-processes': ALL_PROCESSES,
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
    ...SOURCE_MAP_OPTIONS,
  },
} satisfies CliCommand;

/** An option's whole number ≥ 1; undefined when absent, null when it is something else. */
export function wholeNumber(v: string | undefined): number | undefined | null {
  if (v === undefined) return undefined;
  const n = Number(v);
  return Number.isInteger(n) && n >= 1 ? n : null;
}

export interface OutputSettings {
  format: string;
  top?: number;
  sort?: FunctionSort;
  output?: string;
  foldedWeights?: 'samples' | 'period';
}

/** --format and --top checked, or the problem with them (said on stderr after `node-flame <command>: `). */
export function outputSettings(values: {
  format?: string;
  top?: string;
  sort?: string;
  output?: string;
  'folded-weights'?: string;
}): OutputSettings | string {
  const formats = exportFormats();
  const format = values.format ?? 'text';
  if (!formats.includes(format)) return l10n.t('unknown format "{0}" (use one of: {1})', format, formats.join(', '));
  const top = wholeNumber(values.top);
  if (top === null) return l10n.t('--top wants a whole number of 1 or more, not "{0}"', values.top!);
  const sort = values.sort;
  if (sort !== undefined && sort !== 'self' && sort !== 'total') return l10n.t('--sort wants self or total, not "{0}"', sort);
  const fw = values['folded-weights'];
  if (fw !== undefined && fw !== 'samples' && fw !== 'period') return l10n.t('--folded-weights wants samples or period, not "{0}"', fw);
  return { format, top, output: values.output, ...(sort ? { sort } : {}), ...(fw ? { foldedWeights: fw } : {}) };
}

/** Prints the load's warnings, applies the transforms and writes the report where --output says; the exit code. */
export async function emitReport(
  command: string,
  loaded: Profile,
  view: CliView,
  o: OutputSettings & { source: string; run?: OpenedRun },
): Promise<number> {
  for (const w of loaded.warnings) process.stderr.write(l10n.t('node-flame: warning: {0}', printable(w)) + '\n');
  const { transforms, range } = view;
  const routed = routeFilter(loaded, view.routes);
  for (const t of transforms)
    for (const name of unmatched(loaded.frames, t))
      process.stderr.write(l10n.t('node-flame: warning: no function or package named "{0}" in this profile', name) + '\n');
  // An HTML page gets the profile before the transforms and opens with them, as chips to undo.
  const html = o.format === 'html';
  const profile = html ? loaded : applyTransforms(routed, transforms, range);
  const out = exportProfileData(profile, o.format, {
    top: o.top,
    sort: o.sort,
    foldedWeights: o.foldedWeights,
    source: o.source,
    startTime: o.format === 'pprof' ? await fileStartTime(o.source, profile) : undefined,
    timeFacts: html ? await runTimeFactsOf(loaded, o.source, o.run) : undefined,
    view: html ? view : undefined,
    readLine: o.format === 'markdown' ? sourceLineReader() : undefined,
    root: process.cwd(),
    warn: (w) => process.stderr.write(l10n.t('node-flame: warning: {0}', printable(w)) + '\n'),
  });
  if (!o.output) {
    process.stdout.write(out);
    return 0;
  }
  try {
    await writeFile(o.output, out);
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    process.stderr.write(`node-flame ${command}: ${l10n.t('cannot write {0}: {1}', o.output, why)}\n`);
    return 2;
  }
  return 0;
}

export async function runReport(argv: string[]): Promise<number> {
  const parsed = parseCommand(REPORT, argv);
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  if (positionals.length !== 1) return usageError(REPORT, l10n.t('give one profile file'));
  const settings = outputSettings(values);
  if (typeof settings === 'string') {
    process.stderr.write(`node-flame report: ${settings}\n`);
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
  const sourceMapOptions = sourceMapOptionsFrom(values);
  if (typeof sourceMapOptions === 'string') return usageError(REPORT, sourceMapOptions);
  const [file] = positionals;
  // A run folder is read whole: every process's profile, merged.
  const sourceMaps = !values['no-source-maps'];
  const { profile, run } = await loadProfileOrRun(
    file,
    { sourceMaps, pid, sourceMapOptions, allProcesses: values['all-processes'], sampleType: values['sample-type'], labels },
    loadForCli,
    growYoungGenerationForProfRuns,
  );
  return emitReport('report', profile, transforms, { ...settings, source: file, run });
}
