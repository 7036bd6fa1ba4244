// Just the parts of d3-flame-graph and d3-selection the viewer uses (neither ships type declarations).
declare module 'd3-selection' {
  export interface Selection {
    datum(d: unknown): Selection;
    datum(): unknown;
    call(fn: (s: Selection) => unknown): Selection;
    selectAll(sel: string): Selection;
    classed(name: string, value: boolean | ((d: never) => boolean)): Selection;
    each(fn: (this: Element, d: never) => void): Selection;
    node(): Element | null;
  }
  export function select(el: Element | string): Selection;
}

declare module 'd3-flame-graph' {
  import type { Selection } from 'd3-selection';
  export interface HNode<T> {
    data: T;
    parent: HNode<T> | null;
    children?: HNode<T>[];
    depth: number;
    x0: number;
    x1: number;
    value: number;
    highlight?: boolean;
    descendants(): HNode<T>[];
  }
  export interface FlameGraph<T> {
    (s: Selection): void;
    width(w: number): FlameGraph<T>;
    height(h: number | null): FlameGraph<T>;
    minHeight(h: number): FlameGraph<T>;
    cellHeight(h: number): FlameGraph<T>;
    transitionDuration(ms: number): FlameGraph<T>;
    inverted(b: boolean): FlameGraph<T>;
    sort(b: boolean): FlameGraph<T>;
    minFrameSize(px: number): FlameGraph<T>;
    selfValue(b: boolean): FlameGraph<T>;
    tooltip(t: unknown): FlameGraph<T>;
    setColorMapper(fn: (d: HNode<T>, original: string) => string): FlameGraph<T>;
    setSearchMatch(fn: (d: HNode<T>, term: string) => boolean): FlameGraph<T>;
    setSearchHandler(fn: (results: HNode<T>[], sum: number, total: number) => void): FlameGraph<T>;
    setDetailsHandler(fn: (d: unknown) => void): FlameGraph<T>;
    setLabelHandler(fn: (d: HNode<T>) => string): FlameGraph<T>;
    onClick(fn: (d: HNode<T>) => void): FlameGraph<T>;
    onHover(fn: (d: HNode<T>) => void): FlameGraph<T>;
    search(term: string): void;
    clear(): void;
    zoomTo(d: HNode<T>): void;
    resetZoom(): void;
    update(data?: T): FlameGraph<T>;
    destroy(): FlameGraph<T>;
  }
  export default function flamegraph<T>(): FlameGraph<T>;
}
