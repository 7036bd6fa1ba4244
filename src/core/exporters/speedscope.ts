import type { Profile } from '../model';
import { isThreadLevel, threadOfLevel } from '../model/threadLevel';

export const SPEEDSCOPE_SCHEMA = 'https://www.speedscope.app/file-format-schema.json';

interface SampledProfile {
  type: 'sampled';
  name: string;
  unit: 'none' | 'bytes' | 'milliseconds';
  startValue: number;
  endValue: number;
  samples: number[][];
  weights: number[];
}

export interface SpeedscopeFile {
  $schema: string;
  shared: { frames: { name: string; file?: string; line?: number; col?: number }[] };
  profiles: SampledProfile[];
  name: string;
  exporter: string;
  activeProfileIndex: number;
}

/** speedscope's file format: one sampled profile per thread, each distinct stack once with its weight. */
export function toSpeedscope(profile: Profile, name = profile.meta.source ?? 'profile'): SpeedscopeFile {
  const frames = profile.frames.map((f) => ({
    name: f.name,
    ...(f.file ? { file: f.file } : {}),
    ...(f.line ? { line: f.line } : {}),
    ...(f.column ? { col: f.column } : {}),
  }));
  // speedscope shows bytes and milliseconds in their own units; counts stay plain.
  const unit = profile.meta.unit === 'bytes' ? 'bytes' : profile.meta.unit === 'ms' ? 'milliseconds' : 'none';
  const byThread = new Map<string, SampledProfile>();
  const isThread = (id: number) => isThreadLevel(profile.frames[id]);
  profile.tree.forEachStack((stack, self) => {
    let s = stack;
    let thread = profile.threads[0]?.name ?? 'main';
    if (s.length && isThread(s[0])) {
      thread = threadOfLevel(profile.frames[s[0]])!;
      s = s.slice(1);
    }
    let p = byThread.get(thread);
    if (!p) byThread.set(thread, (p = { type: 'sampled', name: thread, unit, startValue: 0, endValue: 0, samples: [], weights: [] }));
    p.samples.push([...s]);
    p.weights.push(self);
    p.endValue += self;
  });
  return {
    $schema: SPEEDSCOPE_SCHEMA,
    shared: { frames },
    profiles: [...byThread.values()],
    name,
    exporter: 'node-flame',
    activeProfileIndex: 0,
  };
}
