import type { CallTree, Frame } from '../../model';
import { doubled } from '../../doubled';

/** Classes of V8's own log writer: the tick log of --prof, perf's JIT maps. */
const LOGGER =
  /^v8::internal::(LogFile|OFStreamBase|V8FileLogger|Logger|CodeEventLogger|ExistingCodeLogger|LinuxPerfJitLogger|LinuxPerfBasicLogger|LowLevelLogger)::/;
/** The C and C++ libraries' output functions (`nm -C` puts a function's return type first). */
const OUTPUT =
  /^(write|__write|__libc_write|fwrite|fputc|fputs|fflush|_IO_\w+|std::ostream::|std::basic_ostream<[^(]*std::__ostream_insert<)/;
/** V8 and node compiling: under --prof each code object it makes is logged with its positions, in the app's thread. */
const COMPILING =
  /^(v8::internal::(Runtime_Compile\w*|Compiler::)|node::contextify::CompileFunction|node::builtins::BuiltinLoader::CompileFunction|v8::ScriptCompiler::)/;

/**
 * The weight of samples that were V8 writing its own log: a logger frame anywhere in the stack, or an output function
 * called straight from a compile (the tick log has no C++ callers between them; a compile writes nothing else). On
 * sass compiling 3,000 rules, --prof's ticks were ~12 % that (perf's 1 %): the profiler's cost, not the app's.
 * One meter per reader: frames only grow, so each is classed once however many live reads weigh the tree.
 */
export class LogWritingMeter {
  /** Per frame: 1 logger, 2 output, 3 compiling, 4 none; 0 not yet classed. */
  private kind = new Int32Array(0);

  weight(tree: CallTree, frames: readonly Frame[]): number {
    if (this.kind.length < frames.length) this.kind = doubled(this.kind, frames.length);
    const kind = this.kind;
    const kindOf = (f: number): number => {
      if (f < 0) return 4;
      if (kind[f] === 0) {
        const name = frames[f].name;
        kind[f] = LOGGER.test(name) ? 1 : OUTPUT.test(name) ? 2 : COMPILING.test(name) ? 3 : 4;
      }
      return kind[f];
    };
    const inLog = new Uint8Array(tree.count);
    let sum = 0;
    // Parents have lower ids than their children.
    for (let i = 1; i < tree.count; i++) {
      const p = tree.parent[i];
      const k = kindOf(tree.frame[i]);
      inLog[i] = inLog[p] === 1 || k === 1 ? 1 : 0;
      const w = tree.self[i];
      if (w > 0 && (inLog[i] === 1 || (k === 2 && p > 0 && kindOf(tree.frame[p]) === 3))) sum += w;
    }
    return sum;
  }
}
