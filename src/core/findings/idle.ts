import * as l10n from '@vscode/l10n';
import { FindingContext } from './context';
import { pct, THRESHOLDS, type Finding } from './types';

/** An app that mostly waited: the load never reached it, so the profile says little about its code. */
export function mostlyIdle(cx: FindingContext): Finding[] {
  let idle = 0;
  let frame = -1;
  let heaviest = 0;
  for (const n of cx.outermost((f) => f.category === 'idle')) {
    idle += cx.total[n];
    if (cx.total[n] > heaviest) {
      heaviest = cx.total[n];
      frame = cx.tree.frame[n];
    }
  }
  let share = cx.share(idle);
  // A --prof sampler takes (almost) no sample while the thread waits: long gaps between samples are the idle time.
  // Gaps, not samples per interval: a busy app on a loaded machine also gets fewer samples than the interval says.
  const g = cx.idleGaps();
  if (g && g.span > 0) share = Math.max(share, g.gaps / g.span);
  if (share < THRESHOLDS.idle) return [];
  return [
    {
      rule: 'mostly-idle',
      severity: 'info',
      share,
      message: l10n.t(
        'The app was idle for {0} of samples: the load did not reach it. Send it work while profiling (set nodeFlame.loadCommand, or --load on the command line) and profile again.',
        pct(share),
      ),
      frame,
    },
  ];
}
