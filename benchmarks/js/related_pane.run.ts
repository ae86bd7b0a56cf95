// Issue 12: from an active-note change to the related pane rendered, with a warm server.
// The plugin runs in the fake Obsidian; performance marks at the change ("file-open") and
// when the pane's list is in the DOM.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { inject, it } from "vitest";
import VaultGraphRagPlugin from "../../obsidian-plugin/src/main";
import { RELATED_VIEW, type RelatedView } from "../../obsidian-plugin/src/related-view";
import { App } from "../../tests/js/fake-obsidian";
import { summary } from "./stats";

const bench = inject("bench");
const N = Number(process.env.BENCH_N ?? 200);
const WARMUP = 20;

/** A deterministic shuffle (xorshift), so every run visits the same notes. */
function pick<T>(items: T[], n: number, seed = 7): T[] {
  let x = seed;
  const rand = (): number => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy.slice(0, n);
}

it(`active note change -> related pane rendered (${N} notes)`, async () => {
  const manifest = JSON.parse(readFileSync(join(import.meta.dirname, "../../obsidian-plugin/manifest.json"), "utf8"));
  const app = new App(bench.vault);
  app.pluginData = { serverUrl: bench.url };
  const plugin = new VaultGraphRagPlugin(app as never, manifest);
  await plugin.onload();
  const notes = pick(app.vault.getMarkdownFiles(), WARMUP + N);
  const view = await plugin.openView<RelatedView>(RELATED_VIEW);
  const leaf = app.workspace.getLeaf();
  const times: number[] = [];
  let empty = 0;
  for (const [i, file] of notes.entries()) {
    performance.mark("change");
    await leaf.openFile(file); // fires file-open: the pane asks the server and renders
    await view.rendered;
    performance.mark("rendered");
    const ms = performance.measure("related", "change", "rendered").duration;
    if (!view.contentEl.querySelector(".vgr-related-title")) throw new Error(`no pane for ${file.path}: ${view.contentEl.textContent}`);
    if (!view.contentEl.querySelector(".vgr-related-item")) empty++;
    if (i >= WARMUP) times.push(ms);
  }
  plugin.unload();
  const result = { vault: bench.vault, budget: plugin.settings.relatedBudget, notesWithoutRelated: empty, ...summary(times) };
  console.log(`related pane: ${JSON.stringify(result)}`);
});
