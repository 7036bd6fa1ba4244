// Big profiles made by repeating the real fuzz seeds (test/fixtures/fuzz) with shifted timestamps: for
// `npm run bench huge` and the editor's big-import e2e test. Each returns the samples it wrote.
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

async function writeRepeated(file, target, head, nextChunk) {
  const out = createWriteStream(file);
  let bytes = 0;
  let reps = 0;
  const write = (s) => (out.write(s) ? null : new Promise((r) => out.once('drain', r)));
  await write(head);
  bytes += Buffer.byteLength(head);
  while (bytes < target) {
    const chunk = nextChunk(reps++);
    bytes += Buffer.byteLength(chunk);
    await write(chunk);
  }
  await new Promise((r) => out.end(r));
  return reps;
}

/** perf script: the header once, then every sample again with its timestamp moved past the last copy. */
/** `seeds`: the folder of the fuzz seeds (test/fixtures/fuzz). */
export async function makePerf(file, target, seeds) {
  const text = readFileSync(join(seeds, 'seed.perf.txt'), 'utf8');
  const first = text.search(/^\S.*\d+\.\d+:/m);
  const head = text.slice(0, first);
  const body = text.slice(first);
  const times = [...body.matchAll(/^(\S.*? )(\d+\.\d+)(:)/gm)].map((m) => Number(m[2]));
  const span = Math.max(...times) - Math.min(...times) + 0.005;
  // The JSON report's `samples` is the total weight: perf periods.
  const weight = [...body.matchAll(/^\S.*? \d+\.\d+:\s+(\d+) /gm)].reduce((a, m) => a + Number(m[1]), 0);
  const reps = await writeRepeated(
    file,
    target,
    head,
    (k) => body.replace(/^(\S.*? )(\d+\.\d+)(:)/gm, (_, a, t, c) => `${a}${(Number(t) + k * span).toFixed(6)}${c}`) + '\n',
  );
  return { samples: weight * reps, reps };
}

/** --prof log: the set-up records once, then the tick records again with shifted timestamps. */
export async function makeV8Log(file, target, seeds) {
  const lines = readFileSync(join(seeds, 'seed-v8.log'), 'latin1').trimEnd().split('\n');
  const ticks = lines.filter((l) => l.startsWith('tick,'));
  const head = lines.filter((l) => !l.startsWith('tick,') && !l.startsWith('profiler,end')).join('\n') + '\n';
  const ts = ticks.map((l) => Number(l.split(',')[2]));
  const span = Math.max(...ts) - Math.min(...ts) + 1000;
  const parts = ticks.map((l) => l.split(','));
  const reps = await writeRepeated(
    file,
    target,
    head,
    (k) => parts.map((f) => `${f[0]},${f[1]},${Number(f[2]) + k * span},${f.slice(3).join(',')}`).join('\n') + '\n',
  );
  return { samples: ticks.length * reps, reps };
}

/**
 * Folded stacks for a random call tree of `n` distinct nodes (each its own name; every tenth with a file
 * and line), one line per node in the order they were made, skewed weights; `extra` lines are appended.
 * The viewer's e2e benchmark and `npm run bench folded` read it.
 */
export function writeTreeFolded(file, n, extra = []) {
  let seed = 42;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const parent = new Int32Array(n).fill(-1);
  for (let i = 1; i < n; i++) parent[i] = Math.floor(Math.pow(rand(), 1.5) * i);
  const name = (i) => (i % 10 ? `f${i}` : `f${i} (/app/m${i % 300}.js:${1 + (i % 500)})`);
  const lines = [];
  for (let i = 0; i < n; i++) {
    const path = [];
    for (let x = i; x >= 0; x = parent[x]) path.push(name(x));
    lines.push(`${path.reverse().join(';')} ${1 + Math.floor(4000 / Math.pow(1 + i, 0.8))}`);
  }
  lines.push(...extra.map((l) => l.replace('{root}', name(0))));
  writeFileSync(file, `${lines.join('\n')}\n`);
  return lines;
}

/**
 * .cpuprofile: the seed's call tree `nodeCopies` times under one `(root)` (ids shifted per copy), then the seed's
 * samples and time deltas again and again, each repeat sampling the next copy, until the file is about `target` bytes.
 */
export async function makeCpuProfile(file, target, seeds, nodeCopies = 2000) {
  const p = JSON.parse(readFileSync(join(seeds, 'seed.cpuprofile'), 'utf8'));
  const span = Math.max(...p.nodes.map((n) => n.id));
  const root = p.nodes.find((n) => n.callFrame.functionName === '(root)');
  const shift = (id, c) => (id === root.id ? id : id + c * span);
  const copy = (c) =>
    p.nodes
      .filter((n) => n !== root)
      .map((n) => JSON.stringify({ ...n, id: shift(n.id, c), children: (n.children ?? []).map((x) => shift(x, c)) }))
      .join(',');
  const rootLine = JSON.stringify({
    ...root,
    children: Array.from({ length: nodeCopies }, (_, c) => root.children.map((x) => shift(x, c))).flat(),
  });
  // One repeat of the samples with the widest ids, to know how many repeats fill the target.
  const samplesOf = (c) => p.samples.map((s) => shift(s, c)).join(',');
  const deltas = p.timeDeltas.join(',');
  const nodeBytes = Array.from({ length: nodeCopies }, (_, c) => copy(c).length + 1).reduce((a, b) => a + b, 0);
  const reps = Math.max(1, Math.round((target - nodeBytes) / (samplesOf(nodeCopies - 1).length + deltas.length + 2)));
  const sum = p.timeDeltas.reduce((a, b) => a + b, 0);
  const out = createWriteStream(file);
  const write = (s) => (out.write(s) ? null : new Promise((r) => out.once('drain', r)));
  await write(`{"nodes":[${rootLine}`);
  for (let c = 0; c < nodeCopies; c++) await write(`,${copy(c)}`);
  await write(`],"startTime":${p.startTime},"endTime":${p.startTime + sum * reps},"samples":[`);
  for (let k = 0; k < reps; k++) await write(`${k ? ',' : ''}${samplesOf(k % nodeCopies)}`);
  await write('],"timeDeltas":[');
  for (let k = 0; k < reps; k++) await write(`${k ? ',' : ''}${deltas}`);
  await write(']}');
  await new Promise((r) => out.end(r));
  return { samples: p.samples.length * reps, nodes: (p.nodes.length - 1) * nodeCopies + 1, reps };
}

/** The fuzz seed's nodes with parent links, in an order where parents come first, and each node's path from the root. */
function seedTree(seeds) {
  const p = JSON.parse(readFileSync(join(seeds, 'seed.cpuprofile'), 'utf8'));
  const parent = new Map();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const root = p.nodes.find((n) => !parent.has(n.id));
  const path = (id) => (id === root.id ? [] : [...path(parent.get(id)), id]);
  return { p, parent, root, path };
}

/**
 * A Chrome trace (`{"traceEvents": [...]}`) of two processes, as V8's tracing profiler writes it: a Profile event
 * each, the seed's nodes (`nodeCopies` shifted copies) in the first chunks, then chunks of 100 samples with their
 * deltas and lines, each chunk after `noisePerChunk` unrelated events the reader must step over (a browser's trace is
 * mostly such events). Returns the samples written.
 */
export async function makeTrace(file, target, seeds, nodeCopies = 500, noisePerChunk = 1) {
  const { p, parent, root } = seedTree(seeds);
  const span = Math.max(...p.nodes.map((n) => n.id));
  const shift = (id, c) => (id === root.id ? id : id + c * span);
  const ev = (pid, name, data, ts) =>
    JSON.stringify({ pid, tid: pid + 1, ts, ph: 'P', cat: 'disabled-by-default-v8.cpu_profiler', name, id: '0x1', args: { data } });
  const lineOf = new Map(p.nodes.map((n) => [n.id, n.positionTicks?.[0]?.line ?? 0]));
  // The node definitions take at most a third of the file: 500 copies are ~9 MB, a small target got them and no sample.
  const copyBytes = JSON.stringify(p.nodes).length;
  nodeCopies = Math.max(1, Math.min(nodeCopies, Math.floor(target / 3 / (2 * copyBytes))));
  let head = '{"traceEvents":[';
  for (const pid of [100, 200]) {
    head += `${ev(pid, 'Profile', { startTime: p.startTime + pid }, p.startTime)},`;
    for (let c = 0; c < nodeCopies; c++) {
      const nodes = p.nodes
        .filter((n) => c === 0 || n !== root)
        .map((n) => ({ id: shift(n.id, c), callFrame: n.callFrame, ...(parent.has(n.id) ? { parent: shift(parent.get(n.id), c) } : {}) }));
      head += `${ev(pid, 'ProfileChunk', { cpuProfile: { nodes }, timeDeltas: [] }, p.startTime)},`;
    }
  }
  let samples = 0;
  const reps = await writeRepeated(file, target, head, (k) => {
    const pid = k % 2 ? 200 : 100;
    const c = (k >> 1) % nodeCopies;
    const s = p.samples.slice(0, 80).map((x) => shift(x, c));
    samples += s.length;
    const noise = JSON.stringify({
      pid,
      tid: pid + 1,
      ts: k,
      ph: 'X',
      cat: 'devtools.timeline',
      name: 'FunctionCall',
      dur: 12,
      args: { data: { url: 'x.js', frame: 'F1' } },
    });
    return `${`${noise},`.repeat(noisePerChunk)}${ev(pid, 'ProfileChunk', { cpuProfile: { samples: s }, timeDeltas: p.timeDeltas.slice(0, 80), lines: p.samples.slice(0, 80).map((x) => lineOf.get(x)) }, k)},`;
  });
  writeFileSync(file, '{"pid":1,"ph":"M","name":"process_name","args":{"name":"end"}}]}', { flag: 'a' });
  return { samples, reps };
}

/**
 * A sampled speedscope file with a stack per sample, as sampling profilers write it (frames: `nodeCopies` copies of the
 * seed's; weights in µs, the seed's deltas). Returns the samples written.
 */
export async function makeSpeedscope(file, target, seeds, nodeCopies = 500) {
  const { p, root, path } = seedTree(seeds);
  const own = p.nodes.filter((n) => n !== root);
  const index = new Map(own.map((n, i) => [n.id, i]));
  const frames = [];
  for (let c = 0; c < nodeCopies; c++)
    for (const n of own)
      frames.push({
        name: n.callFrame.functionName || '(anonymous)',
        file: n.callFrame.url || undefined,
        line: n.callFrame.lineNumber + 1 || undefined,
      });
  const stacks = p.samples.map((s) => path(s).map((id) => index.get(id)));
  const head = `{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":${JSON.stringify(frames)}},"profiles":[{"type":"sampled","name":"main","unit":"microseconds","startValue":0,"endValue":0,"samples":[`;
  let samples = 0;
  const weights = [];
  const reps = await writeRepeated(file, target * 0.93, head, (k) => {
    const c = k % nodeCopies;
    samples += stacks.length;
    weights.push(p.timeDeltas.join(','));
    return `${k ? ',' : ''}${stacks.map((s) => `[${s.map((i) => i + c * own.length).join(',')}]`).join(',')}`;
  });
  writeFileSync(file, `],"weights":[${weights.join(',')}]}],"name":"bench","exporter":"bench"}`, { flag: 'a' });
  return { samples, reps };
}
