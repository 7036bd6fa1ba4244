import * as l10n from '@vscode/l10n';
import { FindingContext, Groups } from './context';
import { pct, THRESHOLDS, type Finding } from './types';

/** The C and C++ runtime: every program spends time in them (malloc, memcpy, write) on behalf of other code. */
const RUNTIME =
  /(?:^|[\\/])(?:libc|libm|libpthread|libdl|librt|libstdc\+\+|libc\+\+|libgcc_s|ld-linux[\w.-]*|ld-musl[\w.-]*|linux-vdso)(?:[.-][\w.]*)?$|\[vdso\]/;

/** Time inside one shared library or native addon (not the node binary itself), named. */
export function nativeLibraries(cx: FindingContext): Finding[] {
  const byLib = new Groups<string>();
  for (const n of cx.outermost((f) => f.category === 'shared-lib' || (f.category === 'native' && /\.node$/.test(f.lib ?? '')))) {
    const f = cx.frames[cx.tree.frame[n]];
    const lib = f.lib ?? f.name;
    if (RUNTIME.test(lib)) continue;
    byLib.add(lib, cx.total[n], n, lib);
  }
  const out: Finding[] = [];
  for (const g of byLib.values()) {
    const share = cx.share(g.w);
    if (share < THRESHOLDS.native) continue;
    // No node:path here: the offline page bundles this too.
    const name = g.data.slice(Math.max(g.data.lastIndexOf('/'), g.data.lastIndexOf('\\')) + 1);
    out.push({
      rule: 'native-library',
      severity: share >= THRESHOLDS.nativeWarning ? 'warning' : 'info',
      share,
      message: /\.node$/.test(g.data)
        ? l10n.t(
            'The native addon {0} runs {1} of samples: check how often this code calls into it, or profile with perf to see inside it.',
            name,
            pct(share),
          )
        : l10n.t(
            'The shared library {0} runs {1} of samples: check how often this code calls into it, or profile with perf to see inside it.',
            name,
            pct(share),
          ),
      ...cx.place(g.node, g.w),
    });
  }
  return out;
}
