// Looking at a screen as people use it: at 360 px and 1440 px, in the light and the dark theme, with axe-core
// checking it each time (no serious or critical violation), nothing wider than the viewport, and a
// screenshot of each under the system's temporary folder (E2E_SCREENSHOTS to put them elsewhere).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';

export const WIDTHS = [360, 1440] as const;
export const SCHEMES = ['light', 'dark'] as const;
export type Scheme = (typeof SCHEMES)[number];

export const SCREENSHOT_DIR = process.env.E2E_SCREENSHOTS ?? path.join(os.tmpdir(), 'erawatch-screens');

export function shotPath(name: string): string {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return path.join(SCREENSHOT_DIR, `${name.replace(/[^a-z0-9-]+/gi, '_')}.png`);
}

/** The serious and critical axe violations of the page as it is now, one line each (rule, target, summary). */
export async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) =>
      v.nodes.map((n) => `${v.id} (${v.impact}) at ${n.target.join(' ')}: ${n.failureSummary ?? v.help}`),
    );
}

/** How far the document is wider than the viewport (0 when it fits). */
export async function overflowPx(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

export interface LookOptions {
  /** Something that shows once the screen has its data. */
  ready?: (page: Page) => Promise<void>;
  widths?: readonly number[];
  schemes?: readonly Scheme[];
}

/**
 * Each width and theme of the page at its current address: waits for `ready`, asserts no serious or critical
 * axe violation and no sideways overflow, and takes a full-page screenshot named `<name>-<width>-<scheme>`.
 */
export async function lookAt(page: Page, name: string, opts: LookOptions = {}): Promise<void> {
  for (const width of opts.widths ?? WIDTHS) {
    for (const scheme of opts.schemes ?? SCHEMES) {
      await page.setViewportSize({ width, height: 900 });
      await page.emulateMedia({ colorScheme: scheme });
      await expect(page.locator('h1').first()).toBeVisible();
      if (opts.ready) await opts.ready(page);
      const label = `${name} at ${width} px, ${scheme}`;
      // Taken first, so a failure below has its picture.
      await page.screenshot({ path: shotPath(`${name}-${width}-${scheme}`), fullPage: true });
      const overflow = await overflowPx(page);
      if (overflow > 0) {
        const wide = await page.evaluate(() =>
          Array.from(document.querySelectorAll('body *'))
            .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5)
            .slice(0, 5)
            .map((e) => `${e.tagName.toLowerCase()}.${e.className}`),
        );
        expect(overflow, `${label}: wider than the viewport (${wide.join(', ')})`).toBeLessThanOrEqual(0);
      }
      expect(await seriousViolations(page), `${label}: axe`).toEqual([]);
    }
  }
}

/** Both widths and both themes in two looks (360 px dark, 1440 px light): for pages seen once per role. */
export async function lookAtPaired(page: Page, name: string, opts: LookOptions = {}): Promise<void> {
  await lookAt(page, name, { ...opts, widths: [360], schemes: ['dark'] });
  await lookAt(page, name, { ...opts, widths: [1440], schemes: ['light'] });
}
