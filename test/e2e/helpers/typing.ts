import type { VSCode } from './vscode';

/** Types five words into the focused editor; how long each took to show on screen (ms): the extension host's responsiveness. */
export async function typingLags(vs: VSCode, tag: string): Promise<number[]> {
  const lags: number[] = [];
  for (let k = 0; k < 5; k++) {
    const word = `${tag}${k}x`;
    await vs.page.keyboard.type(word);
    const t = Date.now();
    await vs.page.waitForFunction(
      (w) => document.querySelector('.part.editor .editor-instance .view-lines')?.textContent?.includes(w),
      word,
      { timeout: 10_000, polling: 10 },
    );
    lags.push(Date.now() - t);
    await vs.page.waitForTimeout(300);
  }
  return lags;
}
