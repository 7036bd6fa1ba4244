import * as l10n from '@vscode/l10n';

export type LaunchMode = 'prof' | 'perf' | 'cpu-prof' | 'heap';

export const LAUNCH_MODES: readonly LaunchMode[] = ['prof', 'perf', 'cpu-prof', 'heap'];

export function isLaunchMode(s: unknown): s is LaunchMode {
  return typeof s === 'string' && (LAUNCH_MODES as readonly string[]).includes(s);
}

export interface ModeInfo {
  mode: LaunchMode;
  label: string;
  /** What the profile shows, its cost, and where it runs: what a user needs to choose. */
  detail: string;
  available: boolean;
  /** Why the mode cannot be used here, when it cannot. */
  unavailableReason?: string;
}

/** The modes with the words a picker shows; perf exists only on Linux. */
export function describeModes(platform: NodeJS.Platform = process.platform): ModeInfo[] {
  const linux = platform === 'linux';
  return [
    {
      mode: 'prof',
      label: l10n.t('V8 tick profiler (--prof)'),
      detail: l10n.t('JavaScript, V8 builtins and C++ frames of node; low overhead; works everywhere.'),
      available: true,
    },
    {
      mode: 'perf',
      label: l10n.t('Linux perf (perf record -g)'),
      detail: l10n.t('JavaScript, native addons, shared libraries and the kernel; low overhead; Linux only, needs perf.'),
      available: linux,
      unavailableReason: linux ? undefined : l10n.t('Linux perf is only available on Linux.'),
    },
    {
      mode: 'cpu-prof',
      label: l10n.t('V8 CPU profile (--cpu-prof)'),
      detail: l10n.t(
        'JavaScript functions and lines only, no native frames; lowest overhead; works everywhere; written when the app exits.',
      ),
      available: true,
    },
    {
      mode: 'heap',
      label: l10n.t('V8 sampling heap profile (memory)'),
      detail: l10n.t(
        'Bytes allocated per function (or still live at exit, see nodeFlame.heapSamples); every Node process of the run; written when the app exits.',
      ),
      available: true,
    },
  ];
}
