import type { ImportOptions, Importer } from '../types';
import type { Profile } from '../../model';
import { V8LogTail } from './tail';

/** The whole read is the live reader's, fed each log to its end: the two cannot answer differently for the same bytes. */
function loadV8Log(path: string, opts: ImportOptions): Promise<Profile> {
  return V8LogTail.whole(path, opts);
}

export const v8logImporter: Importer = {
  format: 'v8log',
  sniff: (head) => head.subarray(0, 11).toString('latin1') === 'v8-version,',
  load: loadV8Log,
};
