import type { Profile } from './model';

/** Rewrites JS frames to their original positions where a source map exists (keeps `generated`). */
export async function applySourceMaps(_profile: Profile): Promise<void> {
  // Filled in by the source-map work (issue 3).
}
