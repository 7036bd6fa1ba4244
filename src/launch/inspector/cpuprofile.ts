/** The `Profiler.Profile` the inspector returns, as saved in `.cpuprofile` files. */
export interface CallFrame {
  functionName: string;
  scriptId: string;
  url: string;
  /** 0-based. */
  lineNumber: number;
  /** 0-based. */
  columnNumber: number;
}

export interface CpuProfileNode {
  id: number;
  callFrame: CallFrame;
  hitCount?: number;
  children?: number[];
  /** 1-based lines. */
  positionTicks?: { line: number; ticks: number }[];
  deoptReason?: string;
}

export interface CpuProfile {
  nodes: CpuProfileNode[];
  /** Microseconds. */
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

const frameKey = (c: CallFrame) => `${c.functionName}\0${c.scriptId}\0${c.url}\0${c.lineNumber}\0${c.columnNumber}`;

/**
 * Joins profiles taken one after another in the same process (the attach session restarts the
 * profiler every few seconds so a dropped connection loses only the last piece) into one profile:
 * trees merged by call path, samples and time deltas kept in order across the gaps.
 */
export function mergeCpuProfiles(parts: CpuProfile[]): CpuProfile {
  if (parts.length === 1) return parts[0];
  if (parts.length === 0) throw new Error('no profile parts');
  const nodes: CpuProfileNode[] = [];
  const byPath = new Map<string, CpuProfileNode>();
  const samples: number[] = [];
  const timeDeltas: number[] = [];
  let lastSampleTime = parts[0].startTime;

  for (const part of parts) {
    const byId = new Map(part.nodes.map((n) => [n.id, n]));
    const mapped = new Map<number, number>();
    const childOf = new Set<number>();
    for (const n of part.nodes) for (const c of n.children ?? []) childOf.add(c);
    const roots = part.nodes.filter((n) => !childOf.has(n.id));
    const visit = (n: CpuProfileNode, parent: CpuProfileNode | undefined) => {
      const key = `${parent?.id ?? 0}\0${frameKey(n.callFrame)}`;
      let m = byPath.get(key);
      if (!m) {
        m = { id: nodes.length + 1, callFrame: { ...n.callFrame }, hitCount: 0, children: [] };
        nodes.push(m);
        byPath.set(key, m);
        parent?.children?.push(m.id);
      }
      m.hitCount = (m.hitCount ?? 0) + (n.hitCount ?? 0);
      for (const pt of n.positionTicks ?? []) {
        m.positionTicks ??= [];
        const same = m.positionTicks.find((x) => x.line === pt.line);
        if (same) same.ticks += pt.ticks;
        else m.positionTicks.push({ ...pt });
      }
      if (n.deoptReason && !m.deoptReason) m.deoptReason = n.deoptReason;
      mapped.set(n.id, m.id);
      // Explicit stack: deep recursion in the profiled app must not overflow ours.
      const stack: [CpuProfileNode, CpuProfileNode][] = [];
      for (const c of n.children ?? []) {
        const child = byId.get(c);
        if (child) stack.push([child, m]);
      }
      return stack;
    };
    const work: [CpuProfileNode, CpuProfileNode | undefined][] = roots.map((r) => [r, undefined]);
    while (work.length) {
      const [n, p] = work.pop()!;
      work.push(...visit(n, p));
    }
    let t = part.startTime;
    const ps = part.samples ?? [];
    const pd = part.timeDeltas ?? [];
    for (let i = 0; i < ps.length; i++) {
      t += pd[i] ?? 0;
      const id = mapped.get(ps[i]);
      if (id === undefined) continue;
      samples.push(id);
      timeDeltas.push(t - lastSampleTime);
      lastSampleTime = t;
    }
  }
  return { nodes, startTime: parts[0].startTime, endTime: parts[parts.length - 1].endTime, samples, timeDeltas };
}

/** Number of samples, from `samples` when present, else the nodes' hit counts. */
export function sampleCount(p: CpuProfile): number {
  return p.samples?.length ?? p.nodes.reduce((s, n) => s + (n.hitCount ?? 0), 0);
}
