import { createReadStream } from 'node:fs';
import type { Profile } from '../../model';
import type { ImportOptions } from '../types';
import { PerfScriptParser } from './parser';
import type { FramePointerCheck } from './framePointers';
import { namingWarnings } from './runner';
import type { SavedJit } from './jitMaps';
import { JitFrameNamer, sumNamingStats, type JitNamingStats } from './jitNamer';

/**
 * The `perf script` texts of one recording's slices read in order into one parser, so the profile is exactly their
 * union. A live run adds each slice once, when it ended (named from the code records known then), and asks for the
 * profile so far as often as it likes; a finished run's are all added, then `end`.
 */
export class PerfSlices {
  readonly parser: PerfScriptParser;
  private readonly stats: JitNamingStats[] = [];

  /** `check`: the recording's libraries, for the frames perf could not give a caller (see framePointers.ts). */
  constructor(check?: FramePointerCheck) {
    this.parser = new PerfScriptParser(undefined, check);
  }

  /** Reads one slice's text, its JIT frames named from `jit`; `onBytes` after each chunk. */
  async add(path: string, jit: Map<number, SavedJit>, opts: ImportOptions = {}, onBytes?: (n: number) => void): Promise<void> {
    opts.signal?.throwIfAborted();
    this.parser.threadLabel ??= opts.threadLabel;
    const namer = new JitFrameNamer(jit);
    const stream = createReadStream(path, { highWaterMark: 1 << 20, signal: opts.signal });
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      this.parser.push(namer.push(chunk));
      onBytes?.(chunk.length);
    }
    this.parser.push(namer.end());
    this.stats.push(namer.stats);
  }

  /** The slices so far; they can be added to after. */
  current(): Profile {
    return this.withNaming(this.parser.current());
  }

  /** The slices, the parser done. */
  end(): Profile {
    return this.withNaming(this.parser.end());
  }

  private withNaming(p: Profile): Profile {
    const naming = namingWarnings(sumNamingStats(this.stats));
    const seen = new Set(p.warnings);
    for (const w of naming) if (!seen.has(w)) p.warnings.push(w);
    if (naming.length) p.meta.unnamed = [...(p.meta.unnamed ?? []), ...naming];
    return p;
  }
}

/**
 * One `perf script` text read while perf script writes it (a live perf run streams its whole recording through one,
 * launch/perfStream.ts): each `push` parses only the bytes added since the last, named from the code records known
 * by then (perf itself loads /tmp/perf-<pid>.map once per process, so code compiled later is left to these), and
 * `current` answers the samples ended so far.
 */
export class PerfScriptStream {
  readonly parser: PerfScriptParser;
  private readonly namer = new JitFrameNamer(new Map());

  /** `check`: the running processes' libraries, for the frames perf could not give a caller (see framePointers.ts). */
  constructor(readonly check?: FramePointerCheck) {
    this.parser = new PerfScriptParser(undefined, check);
  }

  push(chunk: Buffer, jit: Map<number, SavedJit>): void {
    this.namer.setMaps(jit);
    this.parser.push(this.namer.push(chunk));
  }

  current(): Profile {
    const p = this.parser.current();
    const naming = namingWarnings(this.namer.stats);
    const seen = new Set(p.warnings);
    for (const w of naming) if (!seen.has(w)) p.warnings.push(w);
    if (naming.length) p.meta.unnamed = [...(p.meta.unnamed ?? []), ...naming];
    return p;
  }
}
