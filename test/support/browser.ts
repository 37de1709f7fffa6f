/**
 * Headless Chromium for the tests that open the service's pages as a developer would: a fresh
 * page each time (empty storage, a first visit), with every request that leaves the service and
 * every error the page meets written down, so a test can say that there were none.
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';

const chromiumPath = '/usr/bin/chromium';

export interface WatchedPage {
  page: Page;
  /** Requests to anywhere but the service (blob: and data: URLs stay in the page). */
  foreign: string[];
  /** Uncaught exceptions in the page. */
  pageErrors: string[];
  /** Console errors and answers with a 4xx or 5xx status. */
  consoleErrors: string[];
}

export interface TestBrowser {
  open(origin: string, viewport?: { width: number; height: number }): Promise<WatchedPage>;
  close(): Promise<void>;
}

/** A browser launched on first use (with `extraArgs`); `close` it in afterAll. */
export function testBrowser(extraArgs: () => string[] = () => []): TestBrowser {
  let browser: Browser | undefined;
  return {
    async open(origin, viewport = { width: 1400, height: 1000 }) {
      if (!existsSync(chromiumPath))
        throw new Error(
          `Chromium is missing at ${chromiumPath}: this test drives a page in a real browser. ` +
            'Install it with: bash scripts/ensure-test-tools.sh (npm test does this as root).',
        );
      browser ??= await chromium.launch({
        executablePath: chromiumPath,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
          ...extraArgs(),
        ],
      });
      const page = await browser.newPage({ viewport });
      const watched: WatchedPage = { page, foreign: [], pageErrors: [], consoleErrors: [] };
      page.on('request', (request) => {
        const url = request.url();
        if (!url.startsWith(`${origin}/`) && !/^(blob|data):/.test(url)) watched.foreign.push(url);
      });
      page.on('pageerror', (error) => watched.pageErrors.push(error.message));
      page.on('response', (res) => {
        if (res.status() >= 400) watched.consoleErrors.push(`${res.status()} ${res.url()}`);
      });
      page.on('console', (message) => {
        if (message.type() === 'error') watched.consoleErrors.push(message.text());
      });
      return watched;
    },
    async close() {
      await browser?.close();
    },
  };
}
