import type * as Zlib from 'node:zlib';
import {
  Function as PprofFunction,
  Location,
  Mapping,
  Profile as PprofProfile,
  Sample,
  StringTable,
  ValueType,
  type LabelInput,
} from 'pprof-format';
import { functionKey, pprofUnitOf, type Frame, type Profile } from '../model';
import { isThreadLevel, threadOfLevel } from '../model/threadLevel';

// Loaded on first use: a report that does not need it (most do not) skips its load at start-up.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const zlib = () => require('node:zlib') as typeof Zlib;

/** For a state without a name of its own, the name V8's profilers give it (the importers read those back). */
const SPECIAL: Partial<Record<Frame['category'], string>> = { gc: '(garbage collector)', idle: '(idle)', program: '(program)' };

/** Epoch ms after 2001: a start time the profile measured on the wall clock, not on a monotonic one. */
const isEpochMs = (t: number | undefined): t is number => t !== undefined && t > 1e12;
const nanos = (ms: number) => BigInt(Math.round(ms)) * 1_000_000n + BigInt(Math.round((ms % 1) * 1e6));

export interface PprofOptions {
  /** Wall-clock start (epoch ms) to write when the profile has none of its own (the file's time, say). */
  startTime?: number;
}

/** The sample types the export carries and each node's values for them. */
function valueColumns(profile: Profile): { types: { type: string; unit: string }[]; values: (node: number) => number[]; period?: number } {
  const t = profile.tree;
  const unit = profile.meta.unit ?? 'samples';
  if (unit !== 'samples') {
    const u = pprofUnitOf(unit);
    const type = profile.meta.sampleType ?? (unit === 'ms' ? 'cpu' : unit === 'bytes' ? 'space' : 'objects');
    return { types: [{ type, unit: u.unit }], values: (n) => [Math.round(t.self[n] * u.scale)] };
  }
  // perf weighs samples by their period: back to counts, as the text report does.
  const counts = profile.meta.sampleCount && t.weight > 0 ? profile.meta.sampleCount / t.weight : 1;
  const interval = profile.meta.intervalMs;
  let timed = false;
  for (let i = 0; i < t.count && !timed; i++) timed = t.selfTime[i] > 0;
  // Time per node as Go writes it, samples × period, so its shares are the samples' shares; the measured
  // gaps between samples only when there is no period (they charge idle gaps to the sample before).
  const time = interval ? (n: number) => t.self[n] * counts * interval : timed ? (n: number) => t.selfTime[n] : undefined;
  const types = [{ type: 'samples', unit: 'count' }];
  if (time) types.push({ type: 'cpu', unit: 'nanoseconds' });
  return {
    types,
    values: time ? (n) => [Math.round(t.self[n] * counts), Math.round(time(n) * 1e6)] : (n) => [Math.round(t.self[n] * counts)],
    period: interval ? Math.round(interval * 1e6) : undefined,
  };
}

/**
 * The profile as pprof's `profile.proto`, gzipped as Google's pprof and continuous profilers expect:
 * one function per (name, file, line), one location per frame, one sample per call-tree node that
 * has self weight, the thread (when the profile has several) as a `thread name` label.
 */
export function toPprof(profile: Profile, opts: PprofOptions = {}): Uint8Array {
  const strings = new StringTable();
  const t = profile.tree;
  const cols = valueColumns(profile);
  const functions: PprofFunction[] = [];
  const fnIds = new Map<string, number>();
  const mappings: Mapping[] = [];
  const mapIds = new Map<string, number>();
  const locations: Location[] = [];
  const locId = new Int32Array(profile.frames.length);
  profile.frames.forEach((f, i) => {
    if (isThreadLevel(f)) return;
    const key = functionKey(f);
    let fid = fnIds.get(key);
    if (fid === undefined) {
      const name = f.name || SPECIAL[f.category] || '(anonymous)';
      fid = functions.length + 1;
      fnIds.set(key, fid);
      const nameId = strings.dedup(name);
      functions.push(new PprofFunction({ id: fid, name: nameId, systemName: nameId, filename: strings.dedup(f.file), startLine: f.line }));
    }
    let mappingId = 0;
    if (f.lib && !f.file) {
      mappingId = mapIds.get(f.lib) ?? 0;
      if (!mappingId) {
        mappingId = mappings.length + 1;
        mapIds.set(f.lib, mappingId);
        mappings.push(new Mapping({ id: mappingId, filename: strings.dedup(f.lib), hasFunctions: true }));
      }
    }
    locId[i] = locations.length + 1;
    locations.push(new Location({ id: locId[i], mappingId, line: [{ functionId: fid, line: f.line, column: f.column }] }));
  });

  const threadKey = strings.dedup('thread name');
  const samples: Sample[] = [];
  for (let n = 0; n < t.count; n++) {
    if (!(t.self[n] > 0)) continue;
    const ids: number[] = [];
    const label: LabelInput[] = [];
    // Leaf first, as pprof lists a stack.
    for (let m = n; m > 0; m = t.parent[m]) {
      const f = profile.frames[t.frame[m]];
      const thread = threadOfLevel(f);
      if (thread !== undefined) label.push({ key: threadKey, str: strings.dedup(thread) });
      else ids.push(locId[t.frame[m]]);
    }
    samples.push(new Sample({ locationId: ids, value: cols.values(n), label }));
  }

  const start = isEpochMs(profile.meta.startTime) ? profile.meta.startTime : opts.startTime;
  const sampleType = cols.types.map((v) => new ValueType({ type: strings.dedup(v.type), unit: strings.dedup(v.unit) }));
  const timeType = cols.types.find((v) => v.unit === 'nanoseconds');
  const out = new PprofProfile({
    sampleType,
    sample: samples,
    mapping: mappings,
    location: locations,
    function: functions,
    stringTable: strings,
    ...(start ? { timeNanos: nanos(start) } : {}),
    ...(profile.meta.durationMs ? { durationNanos: nanos(profile.meta.durationMs) } : {}),
    ...(cols.period && timeType
      ? { periodType: { type: strings.dedup(timeType.type), unit: strings.dedup('nanoseconds') }, period: cols.period }
      : {}),
  });
  return zlib().gzipSync(out.encode());
}
