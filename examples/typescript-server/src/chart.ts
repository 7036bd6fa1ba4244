// Server-side sparklines for the report. The smoothing is written the slow, obvious way (every
// point re-sums its whole window), so it is what the flame graph shows as the widest frame.

/** Options for one sparkline. */
export interface SparklineOptions {
  width: number;
  height: number;
  /** Points averaged into each drawn point. */
  window: number;
  /** Points actually drawn. */
  points: number;
}

export function movingAverage(values: readonly number[], window: number): number[] {
  const out = new Array<number>(values.length);
  for (let i = 0; i < values.length; i++) {
    let sum = 0;
    let n = 0;
    for (let j = Math.max(0, i - window + 1); j <= i; j++) {
      sum += values[j];
      n++;
    }
    out[i] = sum / n;
  }
  return out;
}

export function sparkline(values: readonly number[], opts: SparklineOptions): string {
  const smooth = movingAverage(values, opts.window);
  const min = Math.min(...smooth);
  const span = Math.max(...smooth) - min || 1;
  const step = Math.max(1, Math.floor(smooth.length / opts.points));
  let d = '';
  for (let i = 0, x = 0; i < smooth.length; i += step, x++) {
    const px = ((x * opts.width) / opts.points).toFixed(1);
    const py = (opts.height - ((smooth[i] - min) / span) * opts.height).toFixed(1);
    d += `${x === 0 ? 'M' : 'L'}${px} ${py}`;
  }
  return `<svg width="${opts.width}" height="${opts.height}"><path d="${d}" fill="none" stroke="currentColor"/></svg>`;
}
