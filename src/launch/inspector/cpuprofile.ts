import type { CpuProfile } from '../run/cpuProfileMerge';

// The profile's types and its one merge live with the run folder's readers: a live run's chunks and an attach
// session's parts are the same pieces, merged the same way.
export { mergeCpuProfiles, type CallFrame, type CpuProfile, type CpuProfileNode } from '../run/cpuProfileMerge';

/** Number of samples, from `samples` when present, else the nodes' hit counts. */
export function sampleCount(p: CpuProfile): number {
  return p.samples?.length ?? p.nodes.reduce((s, n) => s + (n.hitCount ?? 0), 0);
}
