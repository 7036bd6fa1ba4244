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
    const nodes = [{ id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1, columnNumber: -1 }, children: HOSTILE.map((_, i) => i + 2) }];
    HOSTILE.forEach((name, i) => nodes.push({ id: i + 2, callFrame: { functionName: name, url: `file://${fileOf(i, name)}`, lineNumber: 2, columnNumber: 4 }, children: [] }));
    const samples = HOSTILE.flatMap((_, i) => Array(i + 1).fill(i + 2));
    return JSON.stringify({ nodes, startTime: 0, endTime: samples.length * 1000, samples, timeDeltas: samples.map(() => 1000) });
  },
  folded: () => HOSTILE.map((name, i) => `main /app/main.js:1;${name} ${fileOf(i, name)}:3:5 ${i + 1}`).join('\n') + '\n',
  perf: () =>
    HOSTILE.map((name, i) => `node 4242/4242 100.${String(i).padStart(6, '0')}: 1001001 cpu-clock:\n\t    7f0000001${i}00 ${name} (/tmp/perf-4242.map)\n\t    7f0000000100 main (/tmp/perf-4242.map)\n`).join('\n') + '\n',
  v8log: () => {
    const lines = ['v8-version,11,3,244,8,-node.38,0', 'v8-platform,linux,linux', 'profiler,begin,1000'];
    HOSTILE.forEach((name, i) => lines.push(`code-creation,JS,10,${100 + i},0x${(0x10000 + i * 0x1000).toString(16)},256,${v8Escape(`${name} ${fileOf(i, name)}:3:5`)},0x${(0x90000 + i * 16).toString(16)},~`));
    HOSTILE.forEach((_, i) => {
      for (let k = 0; k <= i; k++) lines.push(`tick,0x${(0x10010 + i * 0x1000).toString(16)},${2000 + i * 100 + k},0,0x0,0`);
    });
    return lines.join('\n') + '\n';
  },
};
