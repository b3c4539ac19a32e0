// A real browser for tests: Debian's Chromium (apt-get install -y chromium; `.ci/run` installs it)
// driven by playwright-core, headless, without sandbox (CI runs as root), without background
// networking or component updates, with a fresh profile per launch (removed by `close`).
// Where the binary is absent, `chromiumAvailable(file)` prints why the file's tests are skipped, or,
// when LEADFLOW_TEST_REQUIRE lists `chromium` (CI), throws, failing the file (./required-parts.ts).
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { partProblem } from './required-parts.js';

/** The Chromium binary; LEADFLOW_CHROMIUM overrides the Debian path. */
export const CHROMIUM_PATH = process.env.LEADFLOW_CHROMIUM ?? '/usr/bin/chromium';

/**
 * Whether Chromium is installed; when not, prints `SKIPPED <file>: <reason>` once, or throws when
 * LEADFLOW_TEST_REQUIRE lists `chromium`.
 */
export function chromiumAvailable(testFile: string): boolean {
  const missing = existsSync(CHROMIUM_PATH)
    ? null
    : `${CHROMIUM_PATH} is not installed (apt-get install -y chromium to run the browser tests)`;
  const problem = partProblem('chromium', missing);
  if (problem) console.warn(`SKIPPED ${testFile}: ${problem}`);
  return problem === null;
}

export interface LaunchedBrowser {
  /** The browser's one context (its profile is the fresh directory); open pages with `newPage()`. */
  context: BrowserContext;
  /** Closes the browser and removes its profile directory. */
  close(): Promise<void>;
}

/**
 * Starts headless Chromium on a fresh profile directory. playwright-core passes that directory as
 * `--user-data-dir` itself (it refuses the flag in `args`), hence a persistent context on a new
 * temporary directory rather than `chromium.launch`.
 */
export async function launchChromium(
  viewport = { width: 1280, height: 800 },
  options: { timezoneId?: string } = {},
): Promise<LaunchedBrowser> {
  const profile = await mkdtemp(join(tmpdir(), 'leadflow-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
    viewport,
    timeout: 30_000,
    ...(options.timezoneId ? { timezoneId: options.timezoneId } : {}),
  });
  return {
    context,
    async close() {
      await context.close().catch(() => undefined);
      await rm(profile, { recursive: true, force: true });
    },
  };
}
