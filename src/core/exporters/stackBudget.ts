import * as l10n from '@vscode/l10n';
import { ProfileError, type Profile } from '../model';

/**
 * Formats that write every stack whole (folded, speedscope) grow with the sum of all stacks' depths:
 * a chain n deep with weight on each node writes n²/2 frames from n nodes (40 000 deep: 800 million).
 * Past this many frames, and past a few dozen per node, the export is refused instead of running for
 * minutes and failing on the string limit.
 */
export function checkStackFrames(profile: Profile, format: string): void {
  const frames = profile.tree.stackFrames();
  const limit = Math.max(1 << 22, 64 * profile.tree.count);
  if (frames > limit) {
    throw new ProfileError(
      l10n.t(
        'its stacks hold {0} frames in all (a very deep call chain), too many to write as {1} (at most {2}); export json, cpuprofile or html instead',
        frames,
        format,
        limit,
      ),
      profile.meta.source,
    );
  }
}
