// @vitest-environment node
// /docs (Swagger UI) and /redoc in headless Chromium against the real server: they render, and
// nothing they load leaves this server (README: "work offline ... never from a CDN").
import type { Request } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { browserForFile } from "./chromium";

const server = inject("server");
const browser = browserForFile();

describe("the docs pages", () => {
  it.each([
    ["/docs", ".opblock"],
    ["/redoc", "[data-section-id]"],
  ])("%s renders and lets no request leave the server", async (path, operation) => {
    // The pages need the token like /openapi.json; a browser gets it here as a header.
    const context = await browser().newContext({ extraHTTPHeaders: { Authorization: `Bearer ${server.token}` } });
    const page = await context.newPage();
    const origin = new URL(server.url).origin;
    const elsewhere = (r: Request): boolean => !r.url().startsWith(`${origin}/`) && !r.url().startsWith("blob:");
    const left: string[] = [];
    const errors: string[] = [];
    // A request the page's Content-Security-Policy blocks never reaches the network.
    page.on("requestfailed", (r) => {
      if (elsewhere(r) && r.failure()?.errorText !== "csp") left.push(`${r.url()} (${r.failure()?.errorText})`);
    });
    page.on("requestfinished", (r) => {
      if (elsewhere(r)) left.push(r.url());
    });
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${server.url}${path}`);
    await expect.poll(() => page.locator(operation).count(), { timeout: 15_000 }).toBeGreaterThan(5);
    await page.waitForLoadState("networkidle");
    expect(left).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
