/**
 * Headless Debian Chromium driven by playwright-core (which never downloads a browser here).
 * The flags keep a browser on a closed network quiet: no background, sync, update or QUIC
 * connections. A fresh profile directory per launch, removed at close.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { ROOT } from './process.js';
import { tempDir } from './node.js';
import { PROGRAMS } from './programs.js';

const CHROMIUM = PROGRAMS.chromium.path;

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export interface TestBrowser { context: BrowserContext; page: Page; close(): Promise<void> }

export async function launchBrowser(): Promise<TestBrowser> {
  const profile = tempDir('lr-chromium-');
  // launchPersistentContext passes the directory as --user-data-dir (launch() refuses that flag).
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1000, height: 900 } });
  const page = context.pages()[0] ?? await context.newPage();
  return {
    context,
    page,
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Saves a full-page screenshot under test-output/<folder>/ so a person can look at each page. */
export class Screenshots {
  readonly dir: string;
  private count = 0;

  constructor(folder: string) {
    this.dir = path.join(ROOT, 'test-output', folder);
    fs.rmSync(this.dir, { recursive: true, force: true });
    fs.mkdirSync(this.dir, { recursive: true });
  }

  async take(page: Page, name: string): Promise<string> {
    this.count += 1;
    const file = path.join(this.dir, `${String(this.count).padStart(2, '0')}-${name}.png`);
    await page.screenshot({ path: file, fullPage: true });
    return file;
  }
}
