// Where frames of a flame graph are on screen: their boxes against the part of the chart the user sees.
import type { Frame } from 'playwright-core';
import { eventually } from './poll';

export interface Box {
  top: number;
  bottom: number;
  left: number;
  right: number;
}

export interface FramePlace {
  name: string;
  box: Box;
  /** Inside the visible part of the chart (its scroll box, clipped by the webview's viewport). */
  visible: boolean;
}

export interface ChartView {
  /** The chart's scroll box as seen: its client area clipped by the webview's viewport. */
  visible: Box;
  scrollTop: number;
  scrollHeight: number;
  clientHeight: number;
  /** The webview's viewport (window.innerWidth × innerHeight). */
  viewport: { width: number; height: number };
  /** The widest frame matching each pattern, in the order asked; missing when none is drawn. */
  frames: Array<FramePlace | undefined>;
  /** The drawn frame with the most self time, (idle) left out: where the CPU time went. */
  hottest?: FramePlace;
}

/**
 * Measures the chart `[data-tree=<tree>]` in a viewer webview: for each pattern (a RegExp source matched
 * against frame names) the widest drawn frame's box, and whether it is inside the visible chart area.
 */
export function chartView(frame: Frame, tree: string, patterns: RegExp[]): Promise<ChartView> {
  return frame.evaluate(
    ({ tree, sources }) => {
      const chart = document.querySelector<HTMLElement>(`[data-tree="${tree}"]`);
      if (!chart) throw new Error(`no chart ${tree}`);
      const r = chart.getBoundingClientRect();
      // The client area (no scroll bars), clipped by the viewport.
      const visible = {
        top: Math.max(0, r.top + chart.clientTop),
        left: Math.max(0, r.left + chart.clientLeft),
        bottom: Math.min(window.innerHeight, r.top + chart.clientTop + chart.clientHeight),
        right: Math.min(window.innerWidth, r.left + chart.clientLeft + chart.clientWidth),
      };
      const place = (g: Element): { name: string; box: { top: number; bottom: number; left: number; right: number }; visible: boolean } => {
        const b = (g.querySelector('rect') ?? g).getBoundingClientRect();
        const box = { top: b.top, bottom: b.bottom, left: b.left, right: b.right };
        const inside =
          box.top >= visible.top - 0.5 &&
          box.bottom <= visible.bottom + 0.5 &&
          box.left >= visible.left - 0.5 &&
          box.left < visible.right &&
          box.right > visible.left;
        return { name: g.getAttribute('name') ?? '', box, visible: inside && b.width > 0 };
      };
      const gs = [...chart.querySelectorAll('g.frame')];
      const width = (g: Element) => g.querySelector('rect')?.getBoundingClientRect().width ?? 0;
      const frames = sources.map((src) => {
        const re = new RegExp(src);
        const hits = gs.filter((g) => re.test(g.getAttribute('name') ?? '') && width(g) > 0);
        if (!hits.length) return undefined;
        return place(hits.reduce((a, b) => (width(b) > width(a) ? b : a)));
      });
      // d3 keeps each frame's node on the element. (idle) is time the CPU did not spend.
      const self = (g: Element) => (g as unknown as { __data__: { data: { self: number } } }).__data__.data.self;
      const busy = gs.filter((g) => width(g) > 0 && g.getAttribute('name') !== '(idle)');
      const hottest = busy.length ? busy.reduce((a, b) => (self(b) > self(a) ? b : a)) : undefined;
      return {
        visible,
        scrollTop: chart.scrollTop,
        scrollHeight: chart.scrollHeight,
        clientHeight: chart.clientHeight,
        viewport: { width: window.innerWidth, height: window.innerHeight },
        frames,
        hottest: hottest ? place(hottest) : undefined,
      };
    },
    { tree, sources: patterns.map((p) => p.source) },
  );
}

/** One line for the test log: each frame's box and whether it shows. */
export function describeView(v: ChartView): string {
  const f = (p: FramePlace | undefined) =>
    p ? `${p.name} [${Math.round(p.box.top)}–${Math.round(p.box.bottom)}]${p.visible ? '' : ' HIDDEN'}` : 'not drawn';
  return (
    `chart visible ${Math.round(v.visible.top)}–${Math.round(v.visible.bottom)} px of a ${v.viewport.width}×${v.viewport.height} webview, ` +
    `scrollTop ${v.scrollTop} of ${v.scrollHeight - v.clientHeight}; ${v.frames.map(f).join('; ')}; most self time ${f(v.hottest)}`
  );
}

/** Which of the guide app's hot frames must be on screen (the frame with the most self time always is). */
export interface HotFrames {
  /** `pbkdf2Sync`: false when the profile's stacks do not join it to the hottest frame (perf loses OpenSSL's callers). */
  pbkdf2Sync: boolean;
  /** OpenSSL's SHA-512 leaf: profiles with native frames (not --cpu-prof). */
  native: boolean;
}

/**
 * Polls until the frame with the most self time, and `pbkdf2Sync` and the OpenSSL SHA-512 leaf as asked, have
 * their boxes inside the visible chart area, as the viewer opened it (nothing scrolled by the test).
 */
export async function expectHotPathVisible(
  frame: Frame,
  tree: string,
  want: HotFrames = { pbkdf2Sync: true, native: true },
  timeoutMs = 15_000,
): Promise<ChartView> {
  return eventually(
    () => chartView(frame, tree, [/^pbkdf2Sync$/, /^sha512_block_data_order/]),
    (v) => {
      const [pbkdf2, sha] = v.frames;
      if ((want.pbkdf2Sync && !pbkdf2?.visible) || (want.native && !sha?.visible) || !v.hottest?.visible)
        throw new Error(`the hot path is not all on screen: ${describeView(v)}`);
    },
    timeoutMs,
  );
}
