import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import * as l10n from '@vscode/l10n';
import { Category, classifyJsFile, Frame, ProfileBuilder, ProfileError, Tier } from '../model';
import { fileUrlToPathAnyOs } from '../paths';
import type { Importer } from './types';

const LINE = /^(.*?\S)\s+(\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)$/;

function sniffFolded(head: Buffer): boolean {
  if (head.includes(0)) return false;
  const lines = head.toString('utf8').split(/\r?\n/);
  // The last line of the head may be cut in the middle (of a character, too).
  if (head.length >= 65536) lines.pop();
  if (lines.some((l) => l.includes('\ufffd'))) return false;
  let good = 0;
  for (const l of lines) {
    if (!l.trim() || l.startsWith('#')) continue;
    if (!LINE.test(l.trimEnd())) return false;
    if (++good >= 50) break;
  }
  return good > 0;
}

const TIERS: Record<string, Tier> = { '~': 'interpreted', '^': 'sparkplug', '+': 'maglev', '*': 'turbofan' };
/** V8's code-kind prefixes as `--perf-basic-prof` and `--prof` name code objects. */
const V8_PREFIX = /^(JS|LazyCompile|Function|Script|Eval|Builtin|BytecodeHandler|Handler|Stub|RegExp|InterpretedFunction|Baseline|Maglev|Turbofan):\s*([~^+*]?)/;

interface Parsed {
  frame: Frame;
  /** Plain name with nothing saying what it is; decided once the whole file is seen. */
  plain: boolean;
  perfStyle: boolean;
}

/** One folded frame, e.g. `fib /app/x.js:3:10_[j]`, `fib (/app/x.js:3)`, `do_syscall_64_[k]`, `[libc.so.6]`. */
export function parseFoldedFrame(raw: string): Parsed | null {
  let s = raw.trim();
  let note = '';
  const ann = /_\[([jkiw])\]$/.exec(s);
  if (ann) {
    note = ann[1];
    s = s.slice(0, -4);
  }
  if (!s) return null;
  if (s === '(root)') return null;
  const special: Record<string, Category> = { '(program)': 'program', '(idle)': 'idle', '(garbage collector)': 'gc', '[unknown]': 'unaccounted' };
  if (s in special) return { frame: { name: s, file: '', line: 0, column: 0, category: special[s] }, plain: false, perfStyle: s === '[unknown]' };

  let tier: Tier | undefined;
  let v8Kind = '';
  const pre = V8_PREFIX.exec(s);
  if (pre) {
    v8Kind = pre[1];
    tier = TIERS[pre[2]] ?? undefined;
    s = s.slice(pre[0].length);
  }

  let name = s;
  let file = '';
  let line = 0;
  let column = 0;
  let lib: string | undefined;
  // `name (path:line[:col])` or `name path:line[:col]`; file names may hold spaces inside parentheses.
  const paren = /^(.*?)\s+\(((?:[a-z]:[\\/]|[a-z]+:\/\/|[\\/.~]|node:|internal\/)[^()]*?)(?::(\d+)(?::(\d+))?)?\)$/i.exec(s);
  const bare = paren ? null : /^(.*?)\s+((?:[a-z]:[\\/]|[a-z]+:\/\/|[\\/.~]|node:|internal\/)\S*?)(?::(\d+)(?::(\d+))?)?$/i.exec(s);
  const m = paren ?? bare;
  if (m) {
    const loc = fileUrlToPathAnyOs(m[2]);
    if (m[3] || /\.(?:[cm]?[jt]sx?|node)$/i.test(loc) || loc.startsWith('node:') || loc.startsWith('internal/')) {
      name = m[1];
      file = loc;
      line = m[3] ? Number(m[3]) : 0;
      column = m[4] ? Number(m[4]) : 0;
    } else if (paren) {
      name = m[1];
      lib = loc;
    }
  } else {
    const libOnly = /^\[([^\]]+)\]$/.exec(s);
    if (libOnly) lib = libOnly[1];
  }
  if (!name) name = '(anonymous)';

  const perfStyle = !!note || !!v8Kind || !!lib || !!file;
  let category: Category;
  let pkg: string | undefined;
  if (note === 'k' || lib === 'kernel.kallsyms' || lib === '[kernel.kallsyms]') category = 'kernel';
  else if (/^(Builtin|BytecodeHandler|Handler|Stub|RegExp)$/.test(v8Kind)) category = 'v8';
  else if (file) ({ category, pkg } = classifyJsFile(file));
  else if (lib) category = /(^|[\\/])node$/.test(lib) ? 'native' : 'shared-lib';
  else category = 'app';
  const plain = !file && !lib && !note && !v8Kind;
  const frame: Frame = { name, file, line, column, category, ...(pkg ? { pkg } : {}), ...(lib ? { lib } : {}), ...(tier ? { tier } : {}) };
  return { frame, plain, perfStyle };
}

export const foldedImporter: Importer = {
  format: 'folded',
  sniff: (head) => sniffFolded(head),
  load: async (path, opts) => {
    const size = (await stat(path)).size;
    const b = new ProfileBuilder('folded', { durationMs: null });
    const cache = new Map<string, number>();
    const plainIds = new Set<number>();
    let perfStyle = false;
    let bad = 0;
    let good = 0;
    let read = 0;
    const stack: number[] = [];
    const input = createReadStream(path, { encoding: 'utf8' });
    const rl = createInterface({ input, crlfDelay: Infinity });
    try {
      for await (const raw of rl) {
        read += raw.length + 1;
        const text = raw.trimEnd();
        if (!text || text.startsWith('#')) continue;
        const m = LINE.exec(text);
        if (!m) {
          bad++;
          continue;
        }
        const weight = Number(m[2]);
        // `1e999` parses to Infinity; beyond 2^53 counts are not even exact: damage, not data.
        if (!(weight <= Number.MAX_SAFE_INTEGER)) {
          bad++;
          continue;
        }
        if (!(weight > 0)) continue;
        stack.length = 0;
        for (const part of m[1].split(';')) {
          let id = cache.get(part);
          if (id === undefined) {
            const parsed = parseFoldedFrame(part);
            id = parsed ? b.frame(parsed.frame) : -1;
            if (parsed?.plain) plainIds.add(id);
            if (parsed?.perfStyle) perfStyle = true;
            cache.set(part, id);
          }
          if (id >= 0) stack.push(id);
        }
        b.sample(stack, weight);
        good++;
        if (good % 65536 === 0) {
          opts.signal?.throwIfAborted();
          opts.onProgress?.(Math.min(1, read / (size || 1)));
        }
      }
    } catch (e) {
      if (e instanceof ProfileError || (e as Error).name === 'AbortError') throw e;
      throw new ProfileError(l10n.t('cannot read: {0}', (e as NodeJS.ErrnoException).code ?? (e as Error).message), path);
    } finally {
      rl.close();
      input.destroy();
    }
    if (good === 0) throw new ProfileError(l10n.t('no folded stack lines ("a;b;c 123") found'), path);
    if (bad) b.warn(l10n.t('{0} lines are not folded stacks and were skipped', bad));
    const profile = b.build();
    // Collapsed perf stacks name C/C++ functions plainly beside marked JS and kernel frames.
    if (perfStyle) for (const id of plainIds) profile.frames[id] = { ...profile.frames[id], category: 'native' };
    opts.onProgress?.(1);
    return profile;
  },
};
