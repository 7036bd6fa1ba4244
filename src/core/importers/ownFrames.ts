import type { Category } from '../model';
import { STACK_TOO_DEEP } from './deepStacks';
import { CALLER_NOT_RECORDED } from './perf/framePointers';
import { AMBIGUOUS_JIT } from './perf/jitNamer';
import { CALLERS_UNKNOWN } from './perf/lostCallers';

/**
 * Frames Node Flame puts in a profile that stand for no function. Its exports (folded, speedscope, pprof, .cpuprofile)
 * write them by name like any other, and a file read back must not take them for code: `(stack too deep)` came back
 * as V8's own code from speedscope and pprof, as C++ from a folded file, and a click on it said so.
 */
export const OWN_FRAMES: ReadonlyMap<string, Category> = new Map([
  [STACK_TOO_DEEP.name, STACK_TOO_DEEP.category],
  [CALLERS_UNKNOWN.name, CALLERS_UNKNOWN.category],
  [CALLER_NOT_RECORDED.name, CALLER_NOT_RECORDED.category],
  [AMBIGUOUS_JIT, 'unaccounted'],
  ['(unaccounted)', 'unaccounted'],
]);
