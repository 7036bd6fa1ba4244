import * as l10n from '@vscode/l10n';
import { FindingContext, Groups } from './context';
import type { Frame } from '../model';
import { pct, THRESHOLDS, type Finding } from './types';

/** The C and C++ runtime: every program spends time in them (malloc, memcpy, write) on behalf of other code. */
const RUNTIME =
  /(?:^|[\\/])(?:libc|libm|libpthread|libdl|librt|libstdc\+\+|libc\+\+|libgcc_s|ld-linux[\w.-]*|ld-musl[\w.-]*|linux-vdso)(?:[.-][\w.]*)?$|\[vdso\]/;

/** Time inside one shared library or native addon (not the node binary itself), named. */
export function nativeLibraries(cx: FindingContext): Finding[] {
  const byLib = new Groups<string>();
  // The runtime is left out of the match itself: in perf stacks libc's start code is the root of every sample.
  const isLib = (f: Frame) =>
    (f.category === 'shared-lib' || (f.category === 'native' && /\.node$/.test(f.lib ?? ''))) && !RUNTIME.test(f.lib ?? f.name);
  for (const n of cx.outermost(isLib)) {
    const f = cx.frames[cx.tree.frame[n]];
    const lib = f.lib ?? f.name;
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
      message: advice(cx, g.data, name, share),
      ...cx.place(g.node, g.w),
    });
  }
  return out;
}

/**
 * What to do next depends on what the profile shows of the library: frames `library+0x…` lack its symbols (perf and
 * prof mode both read its debug file once installed); a tick log's named frames are the sampled functions alone (perf
 * walks their native callers); a perf run's already show its functions under it.
 */
function advice(cx: FindingContext, lib: string, name: string, share: number): string {
  const addon = /\.node$/.test(lib);
  const unnamed = cx.frames.some((f) => f.lib === lib && (f.name === '[unknown]' || f.name.startsWith(name + '+0x')));
  if (unnamed)
    return l10n.t(
      'The native library {0} runs {1} of samples, and its code has no symbols here (frames {0}+0x…): install its debug symbols (Debian/Ubuntu: its -dbgsym package; or set DEBUGINFOD_URLS) to see its functions, and check how often this code calls into it.',
      name,
      pct(share),
    );
  if (cx.profile.format !== 'perf' && cx.profile.meta.mode !== 'perf')
    return addon
      ? l10n.t(
          'The native addon {0} runs {1} of samples: check how often this code calls into it, or profile with perf to see inside it.',
          name,
          pct(share),
        )
      : l10n.t(
          'The shared library {0} runs {1} of samples: check how often this code calls into it, or profile with perf to see inside it.',
          name,
          pct(share),
        );
  return l10n.t(
    'The native library {0} runs {1} of samples: its functions are under it in the flame graph; check how often this code calls into it.',
    name,
    pct(share),
  );
}
