import { setFlagsFromString } from 'node:v8';
import { join } from 'node:path';
import { runCached } from './codeCache';

// The CLI's entry (dist/cli.js): sets V8's flags, then runs the CLI's bundle (dist/cli-main.js, src/cli/main.ts) from
// V8's code cache (codeCache.ts). The flags come first: V8 tags the cache with those set when it compiles.
function startFlags(): void {
  // A big import builds its caches early; V8 counts those survivors as a reason to grow the young
  // generation to its 16 MiB maximum, which this short-lived process never needs again. Keeping it at
  // its start size cut peak RSS on an 80 MB tick log from ~110 to ~85 MB without costing time. Tick logs let it grow
  // again (load.ts): on a slower machine and real logs, that saved 9–14 % of the CPU.
  setFlagsFromString('--semi-space-growth-factor=1');
  // V8 optimizes a function once it has run for its interrupt budget (67 584 bytecode bytes by default). A report's
  // code is hot for well under a second, and at the default it was optimized before its paths had run: on tsc's tick log
  // the callers' stack builder was compiled five times, most compiles bailing out for want of type feedback, and those
  // compiles were most of the CPU of V8's background threads. Six times the budget: V8 threads 0.95-1.03 -> 0.61-0.68 s
  // CPU on that log, prettier's log 0.84 -> 0.63 s CPU in all (median), an 80 MB synthetic log not slower (1.48 -> 1.36 s).
  // The CLI's process only: flags are process-wide, and the editor's import worker runs in VS Code's extension host.
  setFlagsFromString('--interrupt-budget=400000');
  // TurboFan inlines callees into an optimized function up to 920 bytecode bytes in all by default. A report's hot
  // functions are scanner loops with many small helpers, and the compiles those inlines made were most of V8's background
  // CPU: on a 30 MB Chrome trace ~150 of its ~550 ms (the scanner's `feed` took 27 ms to compile, a tree walk 4 x 8 ms).
  // A third of the budget: that trace 563 -> 532 ms CPU, a 120 MB one 1235 -> 1216, a 32 MB .cpuprofile 370 -> 353,
  // speedscope 30 MB 437 -> 395, perf script 20 MB 251 -> 240, a 20 MB tick log 308 -> 300 (medians, alternated runs).
  setFlagsFromString('--max-inlined-bytecode-size-cumulative=300');
}

startFlags();
runCached(join(__dirname, 'cli-main.js'), startFlags);
