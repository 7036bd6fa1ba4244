import type { Row } from './render';

const NAMES = ['Ada', 'Grace', 'Linus', 'Margaret', 'Ken', 'Barbara', 'Dennis', 'Frances'];
const CITIES = ['Seoul', 'Tokyo', 'São Paulo', 'Shenzhen', 'Berlin', 'Lagos', 'Austin', 'Pune'];
const SERIES_LENGTH = 600;

/** Deterministic rows (a random walk per row), so every run profiles the same work. */
export function makeRows(count: number): Row[] {
  const rows: Row[] = [];
  let seed = 42;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  for (let id = 1; id <= count; id++) {
    const series: number[] = [];
    let v = 100;
    for (let k = 0; k < SERIES_LENGTH; k++) series.push((v += ((next() >> 8) % 2001) / 1000 - 1));
    rows.push({ id, name: `${NAMES[(next() >> 16) % 8]} <${id}>`, city: CITIES[(next() >> 16) % 8], series });
  }
  return rows;
}
