import { wasmUrl, type Frame, type Profile } from '../model';
import { isThreadLevel } from '../model/threadLevel';

interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; scriptId: string; url: string; lineNumber: number; columnNumber: number };
  hitCount: number;
  children?: number[];
  positionTicks?: { line: number; ticks: number }[];
}

export interface CpuProfileJson {
  nodes: CpuProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const SPECIAL: Partial<Record<Frame['category'], string>> = { gc: '(garbage collector)', idle: '(idle)' };

function url(file: string): string {
  if (!file) return '';
  if (/^[a-z]+:/i.test(file) && !/^[a-z]:[\\/]/i.test(file)) return file; // node:fs, file://, http://
  if (file.startsWith('/')) return 'file://' + encodeURI(file);
  if (/^[a-z]:[\\/]/i.test(file)) return 'file:///' + encodeURI(file.replace(/\\/g, '/'));
  return file; // internal/... and other bare core names stay as V8 shows them
}

/**
 * Chrome DevTools' `.cpuprofile`: the call tree maps one-to-one onto its nodes. Formats without
 * per-sample timestamps get evenly spaced samples at the profile's interval, and weights that are
 * not sample counts (perf periods) are scaled to about 100k samples so viewers stay fast.
 */
export function toCpuProfile(profile: Profile): CpuProfileJson {
  const t = profile.tree;
  let scale = 1;
  let integral = true;
  for (let i = 0; i < t.count && integral; i++) integral = Number.isInteger(t.self[i]);
  if (!integral || t.weight > 5_000_000) scale = 100_000 / (t.weight || 1);
  const nodes: CpuProfileNode[] = [];
  const kids = (n: number) => t.children(n);
  for (let i = 0; i < t.count; i++) {
    const f = t.frame[i] >= 0 ? profile.frames[t.frame[i]] : undefined;
    const name = !f ? '(root)' : (SPECIAL[f.category] ?? (f.category === 'program' && !isThreadLevel(f) ? '(program)' : f.name));
    const c = kids(i);
    nodes.push({
      id: i + 1,
      callFrame: {
        functionName: name,
        scriptId: '0',
        url: f ? (f.category === 'wasm' ? wasmUrl(f) : url(f.file)) : '',
        lineNumber: f && f.line ? f.line - 1 : -1,
        columnNumber: f && f.column ? f.column - 1 : -1,
      },
      hitCount: Math.round(t.self[i] * scale),
      ...(c.length ? { children: c.map((x) => x + 1) } : {}),
    });
  }
  const intervalUs = Math.max(1, Math.round((profile.meta.intervalMs ?? 1) * 1000));
  const samples: number[] = [];
  const timeDeltas: number[] = [];
  if (profile.timeline && scale === 1) {
    let prev = 0;
    const { nodes: leaf, times } = profile.timeline;
    for (let i = 0; i < leaf.length; i++) {
      samples.push(leaf[i] + 1);
      const us = Math.round(times[i] * 1000);
      timeDeltas.push(Math.max(0, us - prev));
      prev = us;
    }
  } else {
    for (const n of nodes) {
      for (let k = 0; k < n.hitCount; k++) {
        samples.push(n.id);
        timeDeltas.push(intervalUs);
      }
    }
  }
  const startTime = Math.round((profile.meta.startTime ?? 0) * 1000);
  const span = timeDeltas.reduce((a, b) => a + b, 0);
  return { nodes, startTime, endTime: startTime + span, samples, timeDeltas };
}
