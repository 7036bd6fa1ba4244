import type { Page } from 'playwright-core';

/** One version of a service worker the page registered: when it started and finished activating (epoch ms). */
export interface WorkerActivation {
  script: string;
  activating: number;
  activated?: number;
}

interface VersionEvent {
  versions: { versionId: string; scriptURL: string; status: string }[];
}

/**
 * Records service worker activations over CDP. code-server serves every webview from one origin and
 * registers its webview service worker again for each new webview (the script URL carries the webview's
 * id): a webview's document waits for that version to activate.
 */
export async function watchServiceWorkers(page: Page): Promise<() => WorkerActivation[]> {
  const seen = new Map<string, WorkerActivation>();
  const cdp = await page.context().newCDPSession(page);
  cdp.on('ServiceWorker.workerVersionUpdated', (e: VersionEvent) => {
    const now = Date.now();
    for (const v of e.versions) {
      if (v.status === 'activating' && !seen.has(v.versionId)) seen.set(v.versionId, { script: v.scriptURL, activating: now });
      const a = seen.get(v.versionId);
      if (v.status === 'activated' && a && a.activated === undefined) a.activated = now;
    }
  });
  await cdp.send('ServiceWorker.enable');
  return () => [...seen.values()];
}
