/**
 * What the console's browser tests share (test/e2e/console.e2e.ts, test/e2e/console-roles.e2e.ts): a
 * browser context that refuses every other origin and notes dialogs and script errors, and the check of
 * each page as it is shown: axe-core finds no serious or critical violation, it fits a 375 px screen
 * without scrolling sideways, it weighs under 100 KB with all it loads; with a name, its screenshot
 * (to SCREENSHOT_DIR, else a temporary folder).
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import type { BrowserContext, Page } from "playwright-core";
import type { Credentials } from "../../scripts/lib";
import type { Stack } from "./harness";

const MAX_PAGE_BYTES = 100 * 1024;
const NARROW = 375;
export const screenshots = process.env.SCREENSHOT_DIR ?? mkdtempSync(path.join(tmpdir(), "console-screenshots-"));
mkdirSync(screenshots, { recursive: true });

/** What every page visited measured. */
export interface PageReport {
  name: string;
  bytes: number;
  violations: Record<string, number>;
  /** How wide the page is laid out at 375 px (at most 375: it fits). */
  narrowWidth: number;
}
export const reports: PageReport[] = [];

const plain = (text: string) =>
  text
    .replace(/[\u00a0\u202f]/g, " ")
    .replace(/\s+/g, " ")
    .trim();

// ---------------------------------------------------------------------------------------------------
// The browser, watched.

/** Anything the pages do that they must not: ask another origin, open a dialog, throw. */
interface Watch {
  elsewhere: string[];
  dialogs: string[];
  errors: string[];
}

export async function openContext(world: Stack): Promise<{ context: BrowserContext; page: Page; watch: Watch }> {
  const context = await world.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const origin = world.service.origin;
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin });
  const watch: Watch = { elsewhere: [], dialogs: [], errors: [] };
  await context.route(
    (url) => url.origin !== origin,
    (route) => {
      watch.elsewhere.push(route.request().url());
      return route.abort();
    },
  );
  const page = await context.newPage();
  page.on("dialog", (dialog) => {
    watch.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on("pageerror", (error) => watch.errors.push(error.message));
  // Every page load fetches all it needs, so that its weight is all of it.
  await (await context.newCDPSession(page)).send("Network.setCacheDisabled", { cacheDisabled: true });
  return { context, page, watch };
}

export function assertQuiet(watch: Watch) {
  assert.deepEqual(watch.elsewhere, [], "no request to any other origin");
  assert.deepEqual(watch.dialogs, [], "no dialog opened");
  assert.deepEqual(watch.errors, [], "no script error");
}

/**
 * Checks the page shown now: axe-core (no serious or critical violation), its weight with everything it
 * loaded, a 375 px screen; and takes its screenshot when it has a name for one.
 */
export async function inspect(page: Page, name: string, screenshot?: string) {
  await page.waitForLoadState("load");
  const results = await new AxeBuilder({ page }).analyze();
  const violations: Record<string, number> = {};
  for (const v of results.violations) violations[v.impact ?? "unknown"] = (violations[v.impact ?? "unknown"] ?? 0) + 1;
  const grave = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  assert.deepEqual(
    grave.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join("; ")})`),
    [],
    `${name}: no serious or critical accessibility violation`,
  );
  const bytes = await page.evaluate(() =>
    [...performance.getEntriesByType("navigation"), ...performance.getEntriesByType("resource")].reduce(
      (sum, entry) => sum + (entry as PerformanceResourceTiming).decodedBodySize,
      0,
    ),
  );
  assert.ok(bytes > 0 && bytes < MAX_PAGE_BYTES, `${name}: ${bytes} bytes with all it loads, under ${MAX_PAGE_BYTES}`);
  if (screenshot) {
    await page.screenshot({
      path: path.join(screenshots, `${screenshot}.png`),
      fullPage: true,
      mask: [page.locator(".secret")],
    });
  }
  const size = page.viewportSize()!;
  await page.setViewportSize({ width: NARROW, height: 800 });
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  if (screenshot === "application") {
    await page.screenshot({ path: path.join(screenshots, "application-375.png"), mask: [page.locator(".secret")] });
  }
  await page.setViewportSize(size);
  assert.ok(width <= NARROW, `${name}: fits ${NARROW} px (its content is ${width} px wide)`);
  reports.push({ name, bytes, violations, narrowWidth: width });
}

export async function signIn(page: Page, origin: string, credentials: Credentials) {
  await page.goto(`${origin}/console/sign-in`);
  await page.getByLabel("User name").fill(credentials.username);
  await page.getByLabel("Password").fill(credentials.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((url) => url.pathname === "/console/applications");
}

export const text = async (page: Page, selector = "main") => plain(await page.locator(selector).innerText());
