import type { Profile } from '../model';
import { selectThreads } from '../model/processes';
import { restrictToRoutes } from '../model/requests';
import { applyTransforms, type Transform } from '../model/transforms';
import type { TimeRange } from '../model/timeline';
import type { TimeFacts } from '../viewer/protocol';
import { toCpuProfile } from './cpuprofile';
import { foldedLabel, toFolded } from './folded';
import { toHtml } from './html';
import { toJsonReport, type FunctionSort } from './json';
import { toMarkdown, type LineReader } from './markdown';
import { toPprof } from './pprof';
import { toSpeedscope } from './speedscope';
import { toSvg } from './svg';
import { capForExport, exportBudget } from './stackBudget';
import { toText } from './text';

export interface ExportOptions {
  /** How many functions listed formats keep (json: 50 by default, text: all). */
  top?: number;
  /** json: the weight `functions` is ordered and cut by (default `self`). */
  sort?: FunctionSort;
  /** Name of the input, for headers and titles. */
  source?: string;
  /** Wall-clock start (epoch ms) for formats that record one, when the profile has none (the input file's time). */
  startTime?: number;
  /** folded: `period` writes perf's period-weighted stacks (ns of cpu-clock) instead of sample counts. */
  foldedWeights?: 'samples' | 'period';
  /** The run folder's markers and event-loop delay/heap tracks, for the HTML page's Timeline (launch/run/runTimeline). */
  timeFacts?: TimeFacts;
  /** The source line a Markdown report quotes (the CLI reads files; without it, no lines are quoted). */
  readLine?: LineReader;
  /**
   * The viewer's transforms and picked processes, the profile given being the one before them: the HTML page opens
   * with them as chips to undo; every other format is written of the profile after them.
   */
  view?: { transforms: Transform[]; threads?: string[]; range?: TimeRange; routes?: string[] };
  /** Told, in one line, what an export over its size budget left out (the heaviest stacks are kept, the rest named as one node). */
  warn?: (message: string) => void;
  /** html: the folder the page's paths are shown relative to when the profile is not a run's (a run's are relative to its app's folder). */
  root?: string;
}

export interface Exporter {
  format: string;
  /** File extension for `-o`-less saves and the editor's save dialog, with the dot. */
  extension: string;
  /** One line, for `--help` and pickers. */
  description: string;
  /** Text, or bytes for binary formats (pprof). */
  write(profile: Profile, opts: ExportOptions): string | Uint8Array;
}

const registry = new Map<string, Exporter>();

/** Adds (or replaces) an output format; each format lives in its own file and registers here. */
export function registerExporter(e: Exporter): void {
  registry.set(e.format, e);
}

export function exportFormats(): string[] {
  return [...registry.keys()];
}

export function getExporter(format: string): Exporter | undefined {
  return registry.get(format);
}

/** The profile in `format`, text or bytes as the format is; throws for a format no exporter is registered for. */
export function exportProfileData(profile: Profile, format: string, opts: ExportOptions = {}): string | Uint8Array {
  const e = registry.get(format);
  if (!e) throw new Error(`unknown export format "${format}" (known: ${exportFormats().join(', ')})`);
  const v = opts.view;
  if (v && format !== 'html') {
    const routed = v.routes?.length && profile.requests ? restrictToRoutes(profile, v.routes) : profile;
    profile = applyTransforms(v.threads ? selectThreads(routed, v.threads) : routed, v.transforms, v.range);
  }
  const labels = format === 'folded' ? profile.frames.map(foldedLabel) : undefined;
  const fitted = capForExport(profile, format, exportBudget(profile, format, labels && ((f) => labels[f].length)));
  if (fitted.warning) opts.warn?.(fitted.warning);
  return e.write(fitted.profile, opts);
}

/** The profile in a text format; throws for a binary one (use `exportProfileData`). */
export function exportProfile(profile: Profile, format: string, opts: ExportOptions = {}): string {
  const out = exportProfileData(profile, format, opts);
  if (typeof out !== 'string') throw new Error(`export format "${format}" is binary`);
  return out;
}

registerExporter({ format: 'text', extension: '.txt', description: 'like node --prof-process', write: toText });
registerExporter({
  format: 'json',
  extension: '.json',
  description: 'stable summary (see README)',
  write: (p, o) => JSON.stringify(toJsonReport(p, o), null, 2) + '\n',
});
registerExporter({
  format: 'markdown',
  extension: '.md',
  description: 'findings and hot paths with their source lines, to paste into a pull request or give to an assistant',
  write: (p, o) => toMarkdown(p, { source: o.source, readLine: o.readLine }),
});
registerExporter({
  format: 'folded',
  extension: '.folded',
  description: 'folded stacks, one line per stack',
  write: (p, o) => toFolded(p, { weights: o.foldedWeights }),
});
registerExporter({
  format: 'cpuprofile',
  extension: '.cpuprofile',
  description: 'Chrome DevTools CPU profile',
  write: (p) => JSON.stringify(toCpuProfile(p)),
});
registerExporter({
  format: 'speedscope',
  extension: '.speedscope.json',
  description: 'speedscope file format',
  write: (p, o) => JSON.stringify(toSpeedscope(p, o.source)),
});
registerExporter({
  format: 'html',
  extension: '.html',
  description: 'the interactive viewer as one offline page',
  write: (p, o) =>
    toHtml(p, {
      source: o.source,
      timeFacts: o.timeFacts,
      root: o.root,
      transforms: o.view?.transforms,
      threads: o.view?.threads,
      range: o.view?.range,
      routes: o.view?.routes,
    }),
});
registerExporter({
  format: 'svg',
  extension: '.svg',
  description: 'static flame graph',
  write: (p, o) => toSvg(p, o.source ? { title: o.source } : {}),
});
registerExporter({
  format: 'pprof',
  extension: '.pb.gz',
  description: "pprof profile.proto, gzipped (Google's pprof, Pyroscope, Datadog)",
  write: (p, o) => toPprof(p, { startTime: o.startTime }),
});
