import { applyAnnouncedSourceMaps } from '../../core/announcedSourceMaps';
import { fileUrlToPathAnyOs } from '../../core/paths';
import type { Profile } from '../../core/model';

/**
 * Applies the source maps collected while attached. `sourceMaps` is keyed by the script URLs of the
 * profiled process; `mapped` says which of them were rewritten to local paths when saving.
 */
export async function applyScriptSourceMaps(
  profile: Profile,
  sourceMaps: Record<string, string>,
  mapped: Record<string, string>,
  mapPath: (p: string) => string | undefined,
): Promise<void> {
  const local: Record<string, string> = {};
  for (const [url, ref] of Object.entries(sourceMaps)) local[mapped[url] ?? fileUrlToPathAnyOs(url)] = ref;
  await applyAnnouncedSourceMaps(profile, local, mapPath);
}
