// Start-up timings for the e2e benchmark: where the time before the first paint goes. Imported first,
// so `script` is when the bundle began to run.
const marks: Record<string, number> = { script: performance.now() };

let hostMarks: Record<string, number> = {};

/** The extension host's start-up times (epoch ms): placed on this document's timeline. */
export function setHostMarks(m: Record<string, number> | undefined): void {
  hostMarks = m ?? {};
}

export function mark(name: string): void {
  marks[name] ??= performance.now();
}

/** Milliseconds since the document started: page and resource loads, then this script's marks. */
export function startupMarks(): string {
  const out: Record<string, number> = {};
  const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
  if (nav) {
    for (const k of ['workerStart', 'fetchStart', 'requestStart', 'responseStart', 'responseEnd', 'domInteractive'] as const)
      if (nav[k]) out[`page.${k}`] = nav[k];
  }
  for (const r of performance.getEntriesByType('resource') as PerformanceResourceTiming[]) {
    const name = r.name.split('/').pop()!.split('?')[0];
    out[`${name}Start`] = r.startTime;
    out[`${name}End`] = r.responseEnd;
  }
  Object.assign(out, marks);
  for (const [k, v] of Object.entries(hostMarks)) out[`host.${k}`] = v - performance.timeOrigin;
  out.epoch = performance.timeOrigin;
  return (
    Object.entries(out)
      .sort((a, b) => a[1] - b[1])
      .filter(([k]) => k !== 'epoch')
      .map(([k, v]) => `${k} ${v.toFixed(0)}`)
      .join(', ') + ` (document started at ${new Date(performance.timeOrigin).toISOString()})`
  );
}

/** When the parser met this page's first stylesheet: VS Code had written our HTML into its frame by then. */
export function pageStart(): number {
  const starts = (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).map((r) => r.startTime);
  return starts.length ? Math.min(...starts) : 0;
}

/** Runs `fn` once what was just drawn is on screen (two frames later). */
export function afterPaint(fn: () => void): void {
  requestAnimationFrame(() => requestAnimationFrame(fn));
}

/** Once the first tree is on screen: the figures the e2e benchmarks read from the page's body. */
export function afterFirstPaint(nodes: number, hostMs: number, received: number, metric: (name: string, ms: number) => void): void {
  afterPaint(() => {
    const now = performance.now();
    document.body.dataset.nodes = String(nodes);
    document.body.dataset.hostMs = hostMs.toFixed(1);
    metric('render', now - received);
    metric('firstPaint', now);
    document.body.dataset.startup = startupMarks();
    document.body.dataset.pageMs = pageStart().toFixed(1);
    document.body.dataset.timeOrigin = performance.timeOrigin.toFixed(0);
  });
}

/** A figure of the page (render, firstPaint, range ms): on the body for the e2e benchmarks, and sent to the host's log. */
export function metricTo(post: (m: { type: 'metric'; name: string; ms: number }) => void): (name: string, ms: number) => void {
  return (name, ms) => {
    document.body.dataset[`${name}Ms`] = ms.toFixed(1);
    post({ type: 'metric', name, ms });
  };
}
