import * as l10n from '@vscode/l10n';
import { blockingNodes, type Blocking } from './blocking';
import { FindingContext, Groups } from './context';
import { pct, THRESHOLDS, type Finding } from './types';

/**
 * CPU-heavy library work (zlib, crypto, JSON) in code that runs before the event loop: for a CLI, a build
 * or a test run that is the whole program, so "it blocks the event loop" would be the wrong advice. File
 * and process calls (`fs.*Sync`, `execSync`) are left alone: reading input synchronously is what a batch job does.
 */
export function batchHotCalls(cx: FindingContext): Finding[] {
  const groups = new Groups<Blocking>();
  for (const { node: n, kind: b } of blockingNodes(cx, (node) => cx.startup[node] === 1, heavy)) {
    groups.add(`${b.call}\0${cx.siteKey(n)}`, cx.total[n], n, b);
  }
  const out: Finding[] = [];
  for (const g of groups.values()) {
    const share = cx.share(g.w);
    if (share < THRESHOLDS.batch) continue;
    out.push({
      rule: 'batch-hot-call',
      severity: share >= THRESHOLDS.batchWarning ? 'warning' : 'info',
      share,
      message: advice(g.data, share),
      ...cx.place(g.node, g.w),
    });
  }
  return out;
}

function heavy(b: Blocking): boolean {
  return !!b.json || b.call === 'zlib' || b.call.startsWith('zlib.') || b.call.startsWith('crypto.');
}

function advice(b: Blocking, share: number): string {
  if (b.json)
    return l10n.t(
      '{0} takes {1} of samples here, in code that runs before the event loop (a batch job or start-up): read or write smaller pieces, stream it, or split the input across worker threads.',
      b.call,
      pct(share),
    );
  if (b.call.startsWith('crypto.'))
    return l10n.t(
      '{0} takes {1} of samples here, in code that runs before the event loop (a batch job or start-up): check its cost parameters (iterations, key size), and for many inputs run the asynchronous {2} so the thread pool works on several at once.',
      b.call,
      pct(share),
      b.instead,
    );
  return l10n.t(
    '{0} takes {1} of samples here, in code that runs before the event loop (a batch job or start-up): a lower compression level, streaming it, or a worker pool for several inputs would cut its time.',
    b.call,
    pct(share),
  );
}
