import * as l10n from '@vscode/l10n';
import type { Deopt, Tier } from '../model';
import { FindingContext, functionKey } from './context';
import { THRESHOLDS, type Finding } from './types';

const TIER_NAMES: Partial<Record<Tier, string>> = {
  interpreted: 'Ignition',
  sparkplug: 'Sparkplug',
  maglev: 'Maglev',
  turbofan: 'TurboFan',
};

/** "62% TurboFan, 38% Ignition": the share of the function's samples each V8 tier ran. */
export function tierMix(cx: FindingContext, key: string): string {
  const byTier = new Map<string, number>();
  let all = 0;
  cx.frames.forEach((f, id) => {
    if (functionKey(f) !== key) return;
    const name = f.tier ? TIER_NAMES[f.tier] : undefined;
    const w = cx.frameTotal(id);
    if (!name || !w) return;
    byTier.set(name, (byTier.get(name) ?? 0) + w);
    all += w;
  });
  return [...byTier]
    .sort((a, b) => b[1] - a[1])
    .map(([t, w]) => `${Math.round((100 * w) / all)}% ${t}`)
    .join(', ');
}

/** Functions V8 optimized and threw away again and again (`code-deopt` events of a `--prof --log-deopt` log). */
export function deoptLoops(cx: FindingContext): Finding[] {
  const deopts = cx.profile.deopts ?? [];
  const byFunction = new Map<string, { frame: number; list: Deopt[] }>();
  for (const d of deopts) {
    const f = cx.frames[d.frame];
    if (!f || f.category === 'node') continue;
    const key = functionKey(f);
    let g = byFunction.get(key);
    if (!g) byFunction.set(key, (g = { frame: d.frame, list: [] }));
    g.list.push(d);
  }
  const out: Finding[] = [];
  for (const [key, g] of byFunction) {
    if (g.list.length < THRESHOLDS.deopts) continue;
    const f = cx.frames[g.frame];
    const share = cx.share(cx.functionTotal(f));
    if (share < THRESHOLDS.deoptShare) continue;
    const reasons = new Map<string, number>();
    for (const d of g.list) reasons.set(d.reason, (reasons.get(d.reason) ?? 0) + 1);
    const reason = [...reasons].sort((a, b) => b[1] - a[1])[0][0];
    // The bailout's own line when it is in this file (inlined code bails out in the callee's file).
    const at = g.list.find((d) => d.reason === reason && d.file === f.file && d.line > 0);
    const tiers = tierMix(cx, key);
    // The sampled frame of this function, so the graph can select it (the deopt's code may never be sampled).
    let frame = -1;
    cx.frames.forEach((h, id) => {
      if (functionKey(h) === key && cx.frameTotal(id) > (frame >= 0 ? cx.frameTotal(frame) : 0)) frame = id;
    });
    out.push({
      rule: 'deopt-loop',
      severity: share >= THRESHOLDS.deoptWarning ? 'warning' : 'info',
      share,
      message: tiers
        ? l10n.t(
            'V8 deoptimized {0} {1} times (mostly "{2}"); it ran {3}: keep the types and object shapes it sees the same so it stays optimized.',
            f.name || '(anonymous)',
            g.list.length,
            reason,
            tiers,
          )
        : l10n.t(
            'V8 deoptimized {0} {1} times (mostly "{2}"): keep the types and object shapes it sees the same so it stays optimized.',
            f.name || '(anonymous)',
            g.list.length,
            reason,
          ),
      file: f.file || undefined,
      line: at ? at.line : f.line || undefined,
      frame,
    });
  }
  return out;
}
