// What every console browser test starts with: the built console present (else the suite fails with
// the command that builds it), Chromium available (else a printed skip reason, or a failure when
// LEADFLOW_TEST_REQUIRE lists `chromium`), a page in a fresh
// Chromium profile whose console errors and page errors are collected, and a temp folder for the
// screenshots (its path printed once).
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { chromiumAvailable, type LaunchedBrowser, launchChromium } from './browser.js';

const DIST = join(import.meta.dirname, '../../dist/console/index.html');

/**
 * Whether the file's browser tests can run (Chromium installed); throws when the console is not built,
 * or when Chromium is missing and LEADFLOW_TEST_REQUIRE lists `chromium`.
 */
export function consoleTestsRunnable(testFile: string): boolean {
  const available = chromiumAvailable(testFile);
  if (available && !existsSync(DIST)) throw new Error(`${DIST} is missing: run \`npm run build\` first`);
  return available;
}

export interface ConsoleBrowser {
  page: Page;
  launched: LaunchedBrowser;
  /** The screenshot folder. */
  shots: string;
  /** Console errors and uncaught page errors seen so far, as text. */
  problems: string[];
  close(): Promise<void>;
}

/**
 * Chromium with one page at 1280×800; screenshots go to a new temp folder named `leadflow-<name>-…`.
 * `timezoneId`: the browser's time zone (the machine's when absent), for pages that show local days.
 */
export async function openConsoleBrowser(name: string, options: { timezoneId?: string } = {}): Promise<ConsoleBrowser> {
  const shots = await mkdtemp(join(tmpdir(), `leadflow-${name}-`));
  console.info(`screenshots: ${shots}`);
  const launched = await launchChromium(undefined, options);
  const page = await launched.context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  return { page, launched, shots, problems, close: () => launched.close() };
}

/** How shootBothWidths takes its pictures. */
export interface ShootOptions {
  /** The whole page rather than the viewport (default true). */
  fullPage?: boolean;
  /** Wait after each resize, ms, for what follows the width (charts); default 0. */
  settleMs?: number;
}

/**
 * Saves `<name>-1280.png` and `<name>-390.png` of the page as it is (1280 px, then a 390-px phone)
 * in the browser's screenshot folder, and leaves the page at 1280×800. Returns the document's width
 * at 390 px (a page that scrolls sideways on a phone is wider than 390).
 */
export async function shootBothWidths(browser: ConsoleBrowser, name: string, options: ShootOptions = {}): Promise<number> {
  const { page, shots } = browser;
  const fullPage = options.fullPage ?? true;
  const settle = async () => {
    if (options.settleMs) await page.waitForTimeout(options.settleMs);
  };
  await page.setViewportSize({ width: 1280, height: 800 });
  await settle();
  await page.screenshot({ path: join(shots, `${name}-1280.png`), fullPage });
  await page.setViewportSize({ width: 390, height: 844 });
  await settle();
  await page.screenshot({ path: join(shots, `${name}-390.png`), fullPage });
  const width = await page.evaluate<number>('document.documentElement.scrollWidth');
  await page.setViewportSize({ width: 1280, height: 800 });
  await settle();
  return width;
}
