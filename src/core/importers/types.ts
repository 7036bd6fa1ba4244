import type { PathMapperOptions } from '../pathMapping';
import type { SourceMapOptions } from '../sourceMapPaths';
import type { Profile, ProfileFormat } from '../model';
import type { LentArrays } from './numberList';

/**
 * A thread's name in the views, from what a run recorded of its processes (launch/run/threadLabels.ts): `threadId` is
 * Node's number for a JavaScript thread (0: the main thread), `tid` the OS thread's. Undefined: the reader's own name.
 */
export type ThreadLabel = (t: { pid: number; tid?: number; threadId?: number }) => string | undefined;

export interface ImportOptions {
  /** Apply source maps found next to the scripts (default true). */
  sourceMaps?: boolean;
  signal?: AbortSignal;
  /** 0..1 as the input is read. */
  onProgress?: (fraction: number) => void;
  /** Extra facts a launcher saved beside the raw file (e.g. `/proc/<pid>/maps`). */
  mapsFile?: string;
  /**
   * The file comes from an untrusted workspace: no outside tool runs on what it names or holds (`nm` on
   * the libraries a log lists, `perf script` on a perf.data), as those parse attacker-chosen binaries.
   */
  untrusted?: boolean;
  /** pprof: the sample type to weigh the tree by (`cpu`, `alloc_space`, …); the file's default when not given. */
  sampleType?: string;
  /** pprof: keep only samples carrying each of these label values (`{ "thread name": "Main" }`). */
  labels?: Record<string, string>;
  /** Where files of a profile taken elsewhere live here; applied before source maps are looked for. */
  pathMapping?: PathMapperOptions;
  /** Formats `pathMapping` applies to (every format when not given): the editor maps only profiles taken elsewhere. */
  pathMappingFormats?: ProfileFormat[];
  /** `sourceMapPathOverrides`, `resolveSourceMapLocations` and the folder they name (the mapping above is added to them). */
  sourceMapOptions?: Omit<SourceMapOptions, 'mapPath'>;
  /** A run folder read as it is being recorded (its chunks so far; the import worker's run reader knows how). */
  live?: boolean;
  /**
   * Memory for a .cpuprofile's samples and times, lent by a caller that reads several one after another and gives it
   * back once done with a profile's timeline (a run's processes, see runProfile.ts).
   */
  lent?: LentArrays;
  /** Names the threads as every mode of a run names them (perf's `comm pid/tid` and prof's `worker N` otherwise). */
  threadLabel?: ThreadLabel;
  /** The caller packs the timeline (packTimeline, a run's processes): a .cpuprofile's reader notes its steps as it reads. */
  packing?: boolean;
}

export interface Importer {
  format: ProfileFormat;
  /** Decides from the first bytes (up to 64 KiB) and never from the file name alone. */
  sniff(head: Buffer, path: string): boolean;
  load(path: string, opts: ImportOptions): Promise<Profile>;
}
