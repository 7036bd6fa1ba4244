import * as l10n from '@vscode/l10n';
import { ProfileError, type Profile } from '../model';

/**
 * Formats that write every stack whole (folded, speedscope) grow with the sum of all stacks' depths:
 * a chain n deep with weight on each node writes n²/2 frames from n nodes (40 000 deep: 800 million).
 * Past this many frames, and past a few dozen per node, the export is refused instead of running for
 * minutes and failing on the string limit.
 */
/** Past this many frames in all a file of whole stacks runs to hundreds of MB (188 MB of folded from a 39 KB pprof). */
export const MAX_STACK_FRAMES = 1 << 24;

/** Call tree nodes an export that writes every node (HTML, cpuprofile, speedscope, SVG) takes at most. */
export const MAX_EXPORT_NODES = 4_000_000;

/** Refuses, in one line, an export of more nodes than MAX_EXPORT_NODES (text and json summarize: any size). */
export function checkExportNodes(profile: Profile, format: string): void {
  if (format === 'text' || format === 'json' || profile.tree.count <= MAX_EXPORT_NODES) return;
  throw new ProfileError(
    l10n.t(
      'its call tree has {0} nodes, too many to write as {1} (at most {2}); export text or json, or focus on a part first',
      profile.tree.count,
      format,
      MAX_EXPORT_NODES,
    ),
    profile.meta.source,
  );
}

export function checkStackFrames(profile: Profile, format: string): void {
  const frames = profile.tree.stackFrames();
  const limit = Math.min(Math.max(1 << 22, 64 * profile.tree.count), MAX_STACK_FRAMES);
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
