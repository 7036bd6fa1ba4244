import * as l10n from '@vscode/l10n';
import type { Frame } from '../model';
import { FindingContext, Groups } from './context';
import { pct, THRESHOLDS, type Finding } from './types';

const LOADER = /^(?:node:)?internal\/modules\/(?:cjs|esm)\//;

function isLoader(f: Frame): boolean {
  return f.category === 'node' && LOADER.test(f.file);
}

/** `require`/`import` on a request or timer path: the module system runs on every call instead of once at start-up. */
export function hotModuleLoads(cx: FindingContext): Finding[] {
  const bySite = new Groups<null>();
  for (const n of cx.outermost(isLoader)) {
    if (cx.startup[n]) continue;
    bySite.add(cx.siteKey(n), cx.total[n], n, null);
  }
  const out: Finding[] = [];
  for (const [key, g] of bySite.map) {
    const share = cx.share(g.w);
    if (share < THRESHOLDS.moduleLoad) continue;
    out.push({
      rule: 'hot-module-load',
      severity: share >= THRESHOLDS.moduleLoadWarning ? 'warning' : 'info',
      share,
      message: key
        ? l10n.t(
            'Loading modules (require or import) takes {0} of samples after start-up here: load the module once at the top of the file and reuse it.',
            pct(share),
          )
        : l10n.t(
            'Loading modules (require or import) takes {0} of samples after start-up, with no code of yours or of a package on the stack to point at (Node loading its own modules, or a profile without files): look in the flame graph for what calls the loader.',
            pct(share),
          ),
      ...cx.place(g.node, g.w),
    });
  }
  return out;
}
