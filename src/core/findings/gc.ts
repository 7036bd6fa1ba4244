import * as l10n from '@vscode/l10n';
import { FindingContext, Groups } from './context';
import { pct, THRESHOLDS, type Finding } from './types';

/** Garbage collection over a tenth of the samples: allocation pressure, placed at the code that allocates most. */
export function gcPressure(cx: FindingContext): Finding[] {
  const nodes = cx.outermost((f) => f.category === 'gc');
  let all = 0;
  const bySite = new Groups<null>();
  for (const n of nodes) {
    all += cx.total[n];
    bySite.add(cx.siteKey(n), cx.total[n], n, null);
  }
  const share = cx.share(all);
  if (share < THRESHOLDS.gc) return [];
  const top = bySite.values().sort((a, b) => b.w - a.w)[0];
  const at = cx.place(top.node, top.w);
  const message =
    at.file !== undefined
      ? l10n.t(
          'Garbage collection takes {0} of samples, {1} of them under this code: it allocates heavily; reuse buffers and objects on this path, or take a heap profile (node --heap-prof) to see what it allocates.',
          pct(share),
          pct(cx.share(top.w)),
        )
      : l10n.t(
          'Garbage collection takes {0} of samples: the app allocates heavily; reuse buffers and objects on hot paths, or take a heap profile (node --heap-prof) to see what it allocates.',
          pct(share),
        );
  return [
    {
      rule: 'gc-pressure',
      severity: share >= THRESHOLDS.gcWarning ? 'warning' : 'info',
      share,
      message,
      ...at,
    },
  ];
}
