import { writeFile } from 'node:fs/promises';
import * as l10n from '@vscode/l10n';
import { diffFunctions } from '../core/model';
import { diffToHtml, diffToJson, diffToText, sharedUnit } from '../core/exporters/diff';
import {
  comparableTotals,
  findRegressions,
  gateSummary,
  toGithubAnnotations,
  toMarkdown,
  type Regression,
} from '../core/exporters/ciReport';
import { parseCommand, usageError, type CliCommand } from './args';
import { growYoungGenerationForProfRuns, loadForCli } from './load';
import { loadProfileOrRun } from '../launch/run/openPath';
import { ALL_PROCESSES } from './report';
import { applyTransforms } from '../core/model/transforms';
import type { TimeRange } from '../core/model/timeline';
import { rangeFrom } from './transforms';
import { routeFilter } from './routes';
import { SOURCE_MAP_OPTIONS, sourceMapOptionsFrom } from './sourceMapFlags';

const FORMATS = ['text', 'json', 'html', 'github', 'markdown'] as const;

export const DIFF = {
  name: 'diff',
  args: '<before> <after>',
  summary: () => l10n.t('compare two profiles (any formats, or run folders): the functions whose share of the time changed most'),
  details: () =>
    l10n.t(
      "With --fail-above N the exit code is 3 when a function's self share grew by more than N percentage points (0 otherwise, 2 on bad input): a CI gate.\n" +
        "--format github prints GitHub Actions annotations at those functions' lines; --format markdown a table for a pull-request comment.",
    ),
  options: {
    format: { type: 'string', short: 'f', default: 'text', value: 'format', help: () => l10n.t('one of: {0}', FORMATS.join(', ')) },
    top: { type: 'string', short: 'n', default: '50', value: 'N', help: () => l10n.t('list the N largest changes (text and json)') },
    output: { type: 'string', short: 'o', value: 'file', help: () => l10n.t('write to this file instead of standard output') },
    'fail-above': {
      type: 'string',
      value: 'points',
      help: () => l10n.t("exit with 3 when a function's self share grew by more than this many percentage points"),
    },
    'sample-type': {
      type: 'string',
      value: 'type',
      help: () => l10n.t("pprof: the sample type to compare (cpu, wall, alloc_space, …); default: the file's default, else its last"),
    },
    'before-range': {
      type: 'string',
      value: 'from:to',
      help: () =>
        l10n.t(
          'compare only this time range of the before profile (ms from its start; either end may be left out): e.g. startup vs the rest of one profile',
        ),
    },
    'after-range': {
      type: 'string',
      value: 'from:to',
      help: () => l10n.t('compare only this time range of the after profile (ms from its start; either end may be left out)'),
    },
    'all-processes': ALL_PROCESSES,
    route: {
      type: 'string',
      multiple: true,
      value: 'route',
      help: () => l10n.t('compare only the samples of this HTTP route\'s requests in both runs, e.g. "GET /auth" (repeatable)'),
    },
    ...SOURCE_MAP_OPTIONS,
  },
} satisfies CliCommand;

export async function runDiff(argv: string[]): Promise<number> {
  const parsed = parseCommand(DIFF, argv);
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const format = (values.format ?? 'text') as (typeof FORMATS)[number];
  if (positionals.length !== 2) return usageError(DIFF, l10n.t('give two profiles (files or run folders), before and after'));
  if (!FORMATS.includes(format)) {
    process.stderr.write(l10n.t('node-flame diff: unknown format "{0}" (use one of: {1})', format, FORMATS.join(', ')) + '\n');
    return 2;
  }
  let limit: number | undefined;
  if (values['fail-above'] !== undefined) {
    limit = Number(values['fail-above']);
    if (values['fail-above'].trim() === '' || !Number.isFinite(limit) || limit < 0)
      return usageError(DIFF, l10n.t('--fail-above wants a number of percentage points (0 or more), not "{0}"', values['fail-above']));
  }
  const top = Math.max(1, Number(values.top) || 50);
  const ranges: (TimeRange | undefined | string)[] = [
    rangeOption('before-range', values['before-range']),
    rangeOption('after-range', values['after-range']),
  ];
  for (const r of ranges) if (typeof r === 'string') return usageError(DIFF, r);
  const sourceMapOptions = sourceMapOptionsFrom(values);
  if (typeof sourceMapOptions === 'string') return usageError(DIFF, sourceMapOptions);
  const [bp, ap] = positionals;
  const opts = { sampleType: values['sample-type'], sourceMapOptions };
  // A run folder is compared whole (every process merged), as `report` reads it.
  const load = async (path: string) =>
    (await loadProfileOrRun(path, { ...opts, allProcesses: values['all-processes'] }, loadForCli, growYoungGenerationForProfRuns)).profile;
  const [before, after] = (await Promise.all([load(bp), load(ap)])).map((p, i) =>
    applyTransforms(routeFilter(p, values.route), [], ranges[i] as TimeRange | undefined),
  );
  const changes = diffFunctions(before, after);
  // Without a limit, github annotates every function that grew at all.
  const regressions: Regression[] =
    limit !== undefined || format === 'github' ? findRegressions(changes, before, after, limit ?? 0, process.cwd()) : [];
  let out: string;
  switch (format) {
    case 'json': {
      const json = diffToJson(changes, top, sharedUnit(before, after));
      out =
        JSON.stringify(limit === undefined ? json : { ...json, failAbove: limit, regressions: regressions.map(regressionJson) }, null, 2) +
        '\n';
      break;
    }
    case 'html':
      out = diffToHtml(before, after, bp, ap, process.cwd());
      break;
    case 'github':
      out = toGithubAnnotations(regressions.slice(0, top), limit ?? 0);
      break;
    case 'markdown':
      out = toMarkdown(changes, { before: bp, after: ap }, comparableTotals(before, after), limit, Math.min(top, 20), regressions);
      break;
    default:
      out = diffToText(changes, bp, ap, top, sharedUnit(before, after));
  }
  if (values.output) await writeFile(values.output, out);
  else process.stdout.write(out);
  if (limit === undefined) return 0;
  if (format !== 'markdown') process.stderr.write(`node-flame diff: ${gateSummary(regressions, limit)}\n`);
  return regressions.length ? 3 : 0;
}

/** `--before-range 0:1500` as a range (undefined when the option is absent), or the problem with it; either end may be left out. */
function rangeOption(name: string, value: string | undefined): TimeRange | undefined | string {
  if (value === undefined) return undefined;
  const m = /^\s*([^:]*?)\s*:\s*([^:]*?)\s*$/.exec(value);
  const r = m ? rangeFrom(m[1] || undefined, m[2] || undefined, [`--${name} (from)`, `--${name} (to)`]) : undefined;
  if (r === undefined || typeof r === 'string')
    return l10n.t('--{0} wants from:to in ms from the profile\'s start (to after from), not "{1}"', name, value);
  return r;
}

const r4 = (x: number) => Math.round(x * 1e4) / 1e4;

function regressionJson(r: Regression) {
  const c = r.change;
  return {
    name: c.name,
    file: c.file,
    line: c.line,
    before: r4(r.before),
    after: r4(r.after),
    points: r4(r.growth),
    ...(r.file ? { at: { file: r.file, line: r.line } } : {}),
  };
}
