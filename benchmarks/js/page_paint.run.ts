// @vitest-environment node
// Issue 11: the page's first paint from a warm server, in headless Chromium (a fresh browser
// context per load, so nothing is cached; the server has served the page once before).
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, inject, it } from "vitest";
import { launchChromium } from "../../tests/js/chromium";
import { summary } from "./stats";

const bench = inject("bench");
const N = Number(process.env.BENCH_N_PAGE ?? 30);
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

it(`page first paint (${N} loads)`, async () => {
  const paint: number[] = [];
  const contentful: number[] = [];
  const statusShown: number[] = [];
  for (let i = 0; i <= N; i++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${bench.url}/`);
    await page.waitForFunction(() => /notes indexed/.test(document.getElementById("status")?.textContent ?? ""));
    const t = await page.evaluate(() => {
      const entry = (name: string): number => performance.getEntriesByName(name)[0]?.startTime ?? NaN;
      return { fp: entry("first-paint"), fcp: entry("first-contentful-paint"), now: performance.now() };
    });
    if (i > 0) {
      paint.push(t.fp);
      contentful.push(t.fcp);
      statusShown.push(t.now);
    }
    await context.close();
  }
  console.log(
    `page: ${JSON.stringify({ firstPaint: summary(paint), firstContentfulPaint: summary(contentful), statusLineShownBy: summary(statusShown) })}`,
  );
});
