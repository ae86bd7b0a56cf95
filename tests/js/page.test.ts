// @vitest-environment node
// The page at / in headless Chromium (Debian's /usr/bin/chromium through playwright-core)
// against the real server: token prompt, ask with a streamed cited answer, open a source and
// a related note, search. A screenshot is saved in the server's temp folder.
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { browserForFile } from "./chromium";

const server = inject("server");
const browser = browserForFile();

/** A page in a fresh browser context whose storage already holds the server's token. */
async function signedIn(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser().newContext();
  await context.addInitScript((token) => localStorage.setItem("vault-graphrag.token", token), server.token);
  return { context, page: await context.newPage() };
}

describe("the page at /", () => {
  it("asks once for the token, streams a cited answer, opens a source and a related note", async () => {
    const context = await browser().newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${server.url}/`);

    // The server has a token: the page asks for it and keeps it in the browser's storage.
    await page.locator("#token-dialog").waitFor({ state: "visible" });
    await page.fill("#token", server.token);
    await page.click("#token-dialog button[type=submit]");
    await expect.poll(() => page.textContent("#status")).toMatch(/^\d+ notes indexed/);
    expect(await page.evaluate(() => localStorage.getItem("vault-graphrag.token"))).toBe(server.token);

    await page.locator("#model option[value=test-stream]").waitFor({ state: "attached" });
    await page.selectOption("#model", "test-stream");
    await page.fill("#question", "Where does the hut's water come from?");
    await page.click("#ask-button");

    const answer = page.locator(".turn .answer");
    await expect.poll(async () => (await answer.textContent())?.trim(), { timeout: 15_000 }).toBe(
      "The spring feeds the trough (Spring Box).",
    );
    await expect.poll(() => page.textContent(".turn .meta")).toMatch(/^answered in/);
    // The citation is a link; the sources list the cited note first.
    const cite = answer.locator('a[href="#note=Places%2FHuts%2FSpring%20Box"]');
    await expect.poll(() => cite.count()).toBe(1);
    const firstSource = page.locator(".turn .sources li").first();
    expect(await firstSource.getAttribute("class")).toBe("cited");

    await firstSource.locator("a").click();
    await expect.poll(() => page.textContent("#note-title")).toBe("Spring Box");
    await expect.poll(() => page.locator("#related li").count()).toBeGreaterThan(0);
    expect(await page.textContent("#related")).toContain("Spring Box");
    expect(await page.getAttribute("#note-open", "href")).toMatch(/^obsidian:\/\/open\?vault=vault&file=Places%2FHuts%2FSpring%20Box$/);
    expect(await page.textContent("#note-body")).toContain("The spring that feeds the hut");

    const related = page.locator("#related li a").first();
    const relatedTitle = await related.textContent();
    await related.click();
    await expect.poll(() => page.textContent("#note-title")).toBe(relatedTitle);

    // Search over /search.
    await page.fill("#search", "brine salt cheese");
    await expect.poll(() => page.locator("#search-results li a").count(), { timeout: 10_000 }).toBeGreaterThan(0);

    const shot = join(server.tmp, "page.png");
    await page.screenshot({ path: shot, fullPage: true });
    expect(existsSync(shot)).toBe(true);

    // Reloaded, the page uses the stored token: no prompt.
    await page.reload();
    await expect.poll(() => page.textContent("#status")).toMatch(/^\d+ notes indexed/);
    expect(await page.locator("#token-dialog").isVisible()).toBe(false);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("streams: the answer grows before the done event", async () => {
    const { context, page } = await signedIn();
    await page.goto(`${server.url}/`);
    await page.locator("#model option[value=js-slow]").waitFor({ state: "attached" });
    await page.selectOption("#model", "js-slow");
    await page.fill("#question", "Tell me everything about the hut.");
    await page.click("#ask-button");
    await expect.poll(() => page.textContent(".turn .answer"), { timeout: 15_000 }).toContain("word3");
    expect(await page.isVisible("#stop")).toBe(true);
    await page.click("#stop");
    await expect.poll(() => page.textContent(".turn .meta")).toBe("stopped");
    expect(await page.textContent(".turn .answer")).not.toContain("word100");
    await context.close();
  });

  it("loads with no error in the console (no /favicon.ico 404) and opens a note", async () => {
    const { context, page } = await signedIn();
    const errors: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(`${m.text()} (${m.location().url})`);
    });
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${server.url}/`);
    await expect.poll(() => page.textContent("#status")).toMatch(/^\d+ notes indexed/);
    await page.fill("#search", "shepherd hut");
    await expect.poll(() => page.locator("#search-results li a").count(), { timeout: 10_000 }).toBeGreaterThan(0);
    await page.locator("#search-results li a").first().click();
    await expect.poll(() => page.locator("#related li").count()).toBeGreaterThan(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("Enter that confirms an input method's candidate does not send the question", async () => {
    const { context, page } = await signedIn();
    await page.goto(`${server.url}/`);
    await expect.poll(() => page.textContent("#status")).toMatch(/^\d+ notes indexed/);
    await page.fill("#question", "小屋の水はどこから");
    const enter = (isComposing: boolean): Promise<void> =>
      page.$eval(
        "#question",
        (box, composing) => {
          box.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", isComposing: composing, bubbles: true, cancelable: true }));
        },
        isComposing,
      );
    await enter(true);
    await page.waitForTimeout(300);
    expect(await page.locator(".turn").count()).toBe(0);
    expect(await page.inputValue("#question")).toBe("小屋の水はどこから");
    await enter(false);
    await expect.poll(() => page.locator(".turn").count()).toBe(1);
    await context.close();
  });
});
