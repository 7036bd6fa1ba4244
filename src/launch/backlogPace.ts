import { setPriority } from 'node:os';

/**
 * The nice values a live helper process (perf script) steps through. It starts at the bottom so it waits instead of
 * the app; when it falls behind, the live view is stale, so it steps up where the system lets it, and back down once
 * it has kept up for a while. Measured on 2 cores busy with 3 other programs: at nice 19 perf script scripted
 * nothing of an 8 s run until the end (the live view drew 0 tables).
 */
export const PACE_NICE = [19, 10, 0] as const;
/** Behind by this much (the age of the oldest byte it has not taken), it steps up. */
export const BEHIND_MS = 1000;
/** Kept up (behind by less than this) for `CALM_MS`, it steps down. */
export const KEPT_UP_MS = 500;
export const CALM_MS = 10_000;

/** Byte positions of a growing input by when they arrived, so the age of the oldest byte not yet taken is known. */
export class Backlog {
  private readonly marks: { t: number; size: number }[] = [];

  /** The input's size at `t`. */
  grew(t: number, size: number): void {
    const last = this.marks[this.marks.length - 1];
    if (!last || size > last.size) this.marks.push({ t, size });
  }

  /** How long the oldest byte past `taken` has waited, at `now` (0 when all is taken). */
  age(now: number, taken: number): number {
    // A mark says the input had `size` bytes at `t`: the first byte not taken arrived by the first mark past it.
    let i = 0;
    while (i < this.marks.length && this.marks[i].size <= taken) i++;
    this.marks.splice(0, i);
    return this.marks.length ? Math.max(0, now - this.marks[0].t) : 0;
  }
}

/** Input that makes less output than this may be records with nothing to print (perf's rounds while the app idles). */
export const UNANSWERED_BYTES = 16 << 10;

/**
 * How long a helper has sat on input without output. perf script takes its input into a queue and prints nothing until
 * its first sample is named (loading libnode's symbols, ~0.45 s of CPU): measured niced on a busy machine, it had read
 * 0.5 MB and printed nothing for 3 s, so what it has taken from the pipe does not tell whether it keeps up.
 */
export class Unanswered {
  private out = 0;
  private inAtOut = 0;
  private since: number | undefined;

  age(now: number, inSize: number, outSize: number): number {
    if (outSize > this.out) {
      this.out = outSize;
      this.inAtOut = inSize;
      this.since = undefined;
      return 0;
    }
    if (inSize - this.inAtOut < UNANSWERED_BYTES) return 0;
    this.since ??= now;
    return now - this.since;
  }
}

/** Which rung of `PACE_NICE` a helper should be on, from how far behind it is, over time. */
export class Pace {
  private rung = 0;
  private changedAt: number;
  private keptUpSince: number | undefined;
  /** The system refused a higher priority: the helper stays where it is. */
  private capped = false;

  constructor(
    start: number,
    /** Sets the helper's nice value; false when not allowed. */
    private readonly apply: (nice: number) => boolean,
  ) {
    this.changedAt = start;
    this.apply(PACE_NICE[0]);
  }

  get nice(): number {
    return PACE_NICE[this.rung];
  }

  /** Called about every poll with how long the oldest byte the helper has not taken has waited. */
  update(now: number, behindMs: number): void {
    if (behindMs >= KEPT_UP_MS) this.keptUpSince = undefined;
    else this.keptUpSince ??= now;
    if (behindMs >= BEHIND_MS && now - this.changedAt >= BEHIND_MS && !this.capped && this.rung < PACE_NICE.length - 1) {
      if (this.apply(PACE_NICE[this.rung + 1])) this.rung++;
      else this.capped = true;
      this.changedAt = now;
    } else if (this.rung > 0 && this.keptUpSince !== undefined && now - this.keptUpSince >= CALM_MS && now - this.changedAt >= CALM_MS) {
      // Lowering one's priority is always allowed.
      if (this.apply(PACE_NICE[this.rung - 1])) this.rung--;
      this.changedAt = now;
    }
  }
}

/** `apply` for a process: its nice value set, or false where only a privileged process may raise it. */
export function niceOf(pid: number): (nice: number) => boolean {
  return (nice) => {
    try {
      setPriority(pid, nice);
      return true;
    } catch {
      return false;
    }
  };
}
