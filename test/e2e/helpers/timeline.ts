import type { Page } from 'playwright-core';

/**
 * Drags across the Timeline's activity graph (`box`, spanning 0..spanEnd ms) from `from` to `to` ms, through the
 * middle, at the graph's half height: the range selection a user makes.
 */
export async function dragOnGraph(
  page: Page,
  box: { x: number; y: number; width: number; height: number },
  spanEnd: number,
  from: number,
  to: number,
): Promise<void> {
  const x = (t: number) => box.x + (t / spanEnd) * box.width;
  const y = box.y + box.height / 2;
  await page.mouse.move(x(from), y);
  await page.mouse.down();
  await page.mouse.move(x((from + to) / 2), y, { steps: 5 });
  await page.mouse.move(x(to), y, { steps: 5 });
  await page.mouse.up();
}
