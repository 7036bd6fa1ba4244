// Function and file names an attacker could put in a profile, and small profiles in every format that carry
// them: for the hostile-name unit tests and the editor's e2e test.

export const LONG = 'L'.repeat(100 * 1024);
export const CONTROL = 'ctl\u0001\u0007\u001b[31m\u007fend';
/**
 * Markup that would act if it were ever parsed: run script (alert is blocked in a sandboxed webview, so
 * some mark the page instead) or load something from outside (leak.invalid never resolves).
 */
export const ACTIVE = [
  '<img src=x onerror=alert(1)>',
  '</script><script>alert(1)</script>',
  'javascript:alert(1)',
  '<img/src=//leak.invalid/img/onerror=document.body.dataset.pwned=1>',
  '<svg/onload=document.body.dataset.pwned=2>',
  "<style>@import'//leak.invalid/css'</style>",
];
/** The names every format carries as function and file names. */
export const HOSTILE = [...ACTIVE, LONG, '한글 日本語 🔥', CONTROL];
/** Names a format can carry unchanged (folded and perf script have no escape for `;`/newline, none here). */
export const MUST_SURVIVE = [...ACTIVE, '한글 日本語 🔥'];

/** V8's log escaping: `,` and `\` escaped, control characters as \xHH; code names keep non-ASCII as raw UTF-8 (as node 20 writes them). */
function v8Escape(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (s[i] === ',') out += '\\x2C';
    else if (s[i] === '\\') out += '\\\\';
    else if (s[i] === '\n') out += '\\n';
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += s[i];
  }
  return out;
}

// Spaces would make `name file:line` ambiguous in folded and V8 names; everything else stays.
export const fileOf = (i: number, name: string) => `/app/${name.replace(/[/ ]/g, '_')}-${i}.js`;

/** A small profile in each format whose function and file names are all of HOSTILE. */
export const writers: Record<string, () => string> = {
  cpuprofile: () => {
    const nodes = [
      { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1, columnNumber: -1 }, children: HOSTILE.map((_, i) => i + 2) },
    ];
    HOSTILE.forEach((name, i) =>
      nodes.push({
        id: i + 2,
        callFrame: { functionName: name, url: `file://${fileOf(i, name)}`, lineNumber: 2, columnNumber: 4 },
        children: [],
      }),
    );
    const samples = HOSTILE.flatMap((_, i) => Array(i + 1).fill(i + 2));
    return JSON.stringify({ nodes, startTime: 0, endTime: samples.length * 1000, samples, timeDeltas: samples.map(() => 1000) });
  },
  folded: () => HOSTILE.map((name, i) => `main /app/main.js:1;${name} ${fileOf(i, name)}:3:5 ${i + 1}`).join('\n') + '\n',
  perf: () =>
    HOSTILE.map(
      (name, i) =>
        `node 4242/4242 100.${String(i).padStart(6, '0')}: 1001001 cpu-clock:\n\t    7f0000001${i}00 ${name} (/tmp/perf-4242.map)\n\t    7f0000000100 main (/tmp/perf-4242.map)\n`,
    ).join('\n') + '\n',
  v8log: () => {
    const lines = ['v8-version,11,3,244,8,-node.38,0', 'v8-platform,linux,linux', 'profiler,begin,1000'];
    HOSTILE.forEach((name, i) =>
      lines.push(
        `code-creation,JS,10,${100 + i},0x${(0x10000 + i * 0x1000).toString(16)},256,${v8Escape(`${name} ${fileOf(i, name)}:3:5`)},0x${(0x90000 + i * 16).toString(16)},~`,
      ),
    );
    HOSTILE.forEach((_, i) => {
      for (let k = 0; k <= i; k++) lines.push(`tick,0x${(0x10010 + i * 0x1000).toString(16)},${2000 + i * 100 + k},0,0x0,0`);
    });
    return lines.join('\n') + '\n';
  },
};

// Shapes that cost time rather than trust (issue 18): each writer makes about `bytes` of input, a
// hostile one and a normal profile of the same format and size, so a test can compare their times.

const V8_HEAD = 'v8-version,11,3,244,8,-node.38,0\nv8-platform,linux,linux\nprofiler,begin,1000\n';
const hex = (n: number) => `0x${n.toString(16)}`;

/** A run of one character inside a name: `a` + spaces + `x`. */
export const run = (len: number, ch = ' ') => `a${ch.repeat(len)}x`;

/** Folded stacks whose frame names hold long runs of spaces (or of `ch`). */
export function foldedRuns(bytes: number, runLen = 64 * 1024, ch = ' '): string {
  const out: string[] = [foldedNormal(1).trimEnd()];
  for (let i = 0, size = 0; size < bytes; i++) {
    const line = `main /app/main.js:1;${run(runLen, ch)}${i} 1`;
    out.push(line);
    size += line.length + 1;
  }
  return out.join('\n') + '\n';
}

/** An ordinary folded profile: many short stacks of ordinary frames. */
export function foldedNormal(bytes: number): string {
  const out: string[] = [];
  for (let i = 0, size = 0; size < bytes; i++) {
    const line = `main /app/main.js:1;handle${i % 97} /app/routes/r${i % 13}.js:${i % 300}:7;work${i} /app/lib/w.js:${i % 1000}:3 ${1 + (i % 5)}`;
    out.push(line);
    size += line.length + 1;
  }
  return out.join('\n') + '\n';
}

/** perf script samples whose header lines hold long runs of spaces (tabs with `ch`). */
export function perfHeaderRuns(bytes: number, runLen = 64 * 1024, ch = ' '): string {
  // An ordinary first sample: the format is told from the file's first 64 KiB.
  const out: string[] = [perfNormal(1)];
  for (let i = 0, size = 0; size < bytes; i++) {
    const s = `${run(runLen, ch)} 4242/4242 ${100 + i}.000001: 1001001 cpu-clock:\n\t    7f0000001000 work${i} (/tmp/perf-4242.map)\n`;
    out.push(s);
    size += s.length + 1;
  }
  return out.join('\n') + '\n';
}

/** An ordinary perf script text: samples with a few frames each. */
export function perfNormal(bytes: number): string {
  const out: string[] = [];
  for (let i = 0, size = 0; size < bytes; i++) {
    const s =
      `node 4242/4242 ${(100 + i / 1000).toFixed(6)}: 1001001 cpu-clock:\n` +
      `\t    7f00000${(i % 4096).toString(16).padStart(4, '0')}0 JS:*work${i % 500} /app/lib/w.js:${i % 900}:3 (/tmp/perf-4242.map)\n` +
      `\t    7f0000000100 JS:~main /app/main.js:1:1 (/tmp/perf-4242.map)\n` +
      `\t    55d0000001f0 node::Start (/usr/bin/node)\n`;
    out.push(s);
    size += s.length + 1;
  }
  return out.join('\n') + '\n';
}

/** A V8 log whose ticks land in code with long names (`count` names of `nameLen` characters, `shape` repeated). */
export function v8logLongNames(count: number, nameLen: number, shape = 'x'): string {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const name = shape.repeat(Math.ceil(nameLen / shape.length)).slice(0, nameLen) + i;
    lines.push(`code-creation,JS,10,${100 + i},${hex(0x10000 + i * 0x1000)},256,${name},${hex(0x90000 + i * 16)},~`);
    lines.push(`tick,${hex(0x10010 + i * 0x1000)},${2000 + i},0,0x0,0`);
  }
  return V8_HEAD + lines.join('\n') + '\n';
}

/** An ordinary V8 log of about `bytes`: code objects with ordinary names, and ticks in them. */
export function v8logNormal(bytes: number): string {
  const lines: string[] = [];
  for (let i = 0, size = 0; size < bytes; i++) {
    const a = [
      `code-creation,JS,10,${100 + i},${hex(0x10000 + i * 0x100)},256,work${i} /app/lib/w${i % 50}.js:${1 + (i % 900)}:3,${hex(0x900000 + i * 16)},~`,
      `tick,${hex(0x10010 + i * 0x100)},${2000 + i},0,0x0,0,${hex(0x10020 + (i >> 1) * 0x100)}`,
    ];
    lines.push(...a);
    size += a[0].length + a[1].length + 2;
  }
  return V8_HEAD + lines.join('\n') + '\n';
}

/** A V8 log listing `count` shared libraries (as a process with many native addons would), then a few ticks. */
export function v8logSharedLibraries(count: number, base = '/nonexistent/lib'): string {
  const lines: string[] = [];
  for (let i = 0; i < count; i++)
    lines.push(`shared-library,${base}${i}.so,${hex(0x7f0000000000 + i * 0x100000)},${hex(0x7f0000000000 + i * 0x100000 + 0x80000)},0`);
  lines.push('shared-library-end');
  for (let i = 0; i < 100; i++) lines.push(`tick,${hex(0x7f0000000000 + (i % count) * 0x100000 + 0x10)},${2000 + i},0,0x0,0`);
  return V8_HEAD + lines.join('\n') + '\n';
}

/** A `.cpuprofile` whose call tree is one chain `depth` deep, with leaves' hit counts (no sample list). */
export function cpuprofileChain(depth: number, leafHits: number[]): string {
  const nodes: object[] = [
    { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1, columnNumber: -1 }, hitCount: 0, children: [2] },
  ];
  for (let d = 0; d < depth; d++) {
    const id = d + 2;
    const children = d + 1 < depth ? [id + 1] : leafHits.map((_, k) => depth + 2 + k);
    nodes.push({
      id,
      callFrame: { functionName: `f${d}`, url: `file:///app/x${d % 100}.js`, lineNumber: d % 1000, columnNumber: 2 },
      hitCount: 1,
      children,
    });
  }
  leafHits.forEach((hitCount, k) =>
    nodes.push({
      id: depth + 2 + k,
      callFrame: { functionName: `leaf${k}`, url: 'file:///app/leaf.js', lineNumber: k, columnNumber: 2 },
      hitCount,
      children: [],
    }),
  );
  return JSON.stringify({ nodes, startTime: 0, endTime: 1e6 });
}

/** An ordinary `.cpuprofile` with `count` nodes: a bushy tree a few levels deep. */
export function cpuprofileBushy(count: number): string {
  const nodes: { id: number; callFrame: object; hitCount: number; children: number[] }[] = [
    { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1, columnNumber: -1 }, hitCount: 0, children: [] },
  ];
  for (let i = 2; i <= count; i++) {
    const parent = nodes[Math.floor((i - 2) / 8)];
    parent.children.push(i);
    nodes.push({
      id: i,
      callFrame: { functionName: `f${i}`, url: `file:///app/x${i % 100}.js`, lineNumber: i % 1000, columnNumber: 2 },
      hitCount: 1 + (i % 7),
      children: [],
    });
  }
  return JSON.stringify({ nodes, startTime: 0, endTime: 1e6 });
}

/** perf script samples whose JS frame names (from a perf map) hold `count` spaces each followed by something path-like. */
export function perfFrameRuns(bytes: number, count = 32 * 1024): string {
  const out: string[] = [perfNormal(1)];
  for (let i = 0, size = 0; size < bytes; i++) {
    const s = `node 4242/4242 ${(200 + i / 1000).toFixed(6)}: 1001001 cpu-clock:\n\t    7f00000${(i % 4096).toString(16).padStart(4, '0')}0 JS:*f${i}${' /x'.repeat(count)} (/tmp/perf-4242.map)\n`;
    out.push(s);
    size += s.length + 1;
  }
  return out.join('\n') + '\n';
}

/** Folded stacks whose leaf frames all share one name at different lines (`same`), or have names of their own. */
export function foldedOneName(bytes: number, same = true): string {
  const out: string[] = [];
  for (let i = 0, size = 0; size < bytes; i++) {
    const line = `main;${same ? 'f' : `f${i}`} /a.js:${i + 1}:1 1`;
    out.push(line);
    size += line.length + 1;
  }
  return out.join('\n') + '\n';
}

/** A run.json of about `bytes` that is valid: `head`'s fields and a long list of processes, as a hostile repository would ship. */
export function bigRunJson(bytes: number, head: Record<string, unknown>): string {
  const proc = JSON.stringify({
    pid: 1,
    ppid: 0,
    command: ['node', 'x'.repeat(200)],
    exitCode: 0,
    startedAt: '2026-01-01T00:00:00Z',
    profiles: [],
  });
  const n = Math.max(0, Math.floor((bytes - 200) / (proc.length + 1)));
  return `${JSON.stringify(head).slice(0, -1)},"processes":[${Array.from({ length: n }, () => proc).join(',')}]}`;
}
