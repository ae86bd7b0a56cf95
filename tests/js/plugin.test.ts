// The Obsidian plugin in a fake Obsidian (tests/js/fake-obsidian.ts) against the real server.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, inject, it } from "vitest";
import { VaultRagClient } from "../../client";
import { ASK_VIEW, type AskView } from "../../obsidian-plugin/src/ask-view";
import VaultGraphRagPlugin from "../../obsidian-plugin/src/main";
import { RELATED_VIEW, type RelatedView } from "../../obsidian-plugin/src/related-view";
import type { SearchModal } from "../../obsidian-plugin/src/search-modal";
import type { Settings } from "../../obsidian-plugin/src/settings";
import { TokenModal } from "../../obsidian-plugin/src/token-modal";
import { statusText } from "../../obsidian-plugin/src/status-bar";
import { App, MarkdownRenderer, type MarkdownView, Notice, TFile, requests } from "./fake-obsidian";
import { freePort } from "./server.setup";

const server = inject("server");
const client = new VaultRagClient({ baseUrl: server.url, token: server.token });
const manifest = JSON.parse(readFileSync(join(import.meta.dirname, "../../obsidian-plugin/manifest.json"), "utf8"));
const HUT = "Places/Huts/Shepherd's Hut";

let loaded: VaultGraphRagPlugin[] = [];
const realFetch = window.fetch;

beforeEach(() => {
  requests.length = 0;
});

afterEach(() => {
  for (const plugin of loaded) plugin.unload();
  loaded = [];
  window.fetch = realFetch;
});

async function loadPlugin(
  settings: Partial<Settings> = {},
  options: { mobile?: boolean } = {},
): Promise<{ app: App; plugin: VaultGraphRagPlugin }> {
  const app = new App(server.vault, options);
  app.pluginData = { serverUrl: server.url, token: server.token, ...settings };
  const plugin = new VaultGraphRagPlugin(app as never, manifest);
  await plugin.onload();
  loaded.push(plugin);
  return { app, plugin };
}

async function openNote(app: App, uri: string): Promise<void> {
  await app.workspace.getLeaf().openFile(new TFile(`${uri}.md`));
}

async function relatedPane(app: App, plugin: VaultGraphRagPlugin): Promise<RelatedView> {
  await app.runCommand("show-related");
  const view = await plugin.openView<RelatedView>(RELATED_VIEW);
  await view.rendered;
  return view;
}

async function until(check: () => boolean, what: string, seconds = 15): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const items = (view: RelatedView): HTMLElement[] => [...view.contentEl.querySelectorAll<HTMLElement>(".vgr-related-item")];

describe("related notes pane", () => {
  it("renders the relations the server returns for the active note, in its order", async () => {
    const { app, plugin } = await loadPlugin();
    await openNote(app, HUT);
    const view = await relatedPane(app, plugin);
    const expected = await client.focus(HUT, { budget: plugin.settings.relatedBudget, seed: 1 });
    expect(expected.relatedNotes.length).toBeGreaterThan(2);
    const shown = items(view).map((li) => [
      li.querySelector("a")?.getAttribute("data-href"),
      li.querySelector(".vgr-why")?.textContent,
    ]);
    expect(expected.relatedNotes.every((n) => n.relationSentence)).toBe(true); // the server's sentences
    expect(shown).toEqual(expected.relatedNotes.map((n) => [n.uri, n.relationSentence]));
    expect(shown.map((s) => s[1])).toContain("Spring Box is a child of Shepherd's Hut");
    expect(view.contentEl.querySelector(".vgr-related-title")?.textContent).toBe("Related to Shepherd's Hut");
  });

  it("opens the clicked note, previews on hover, and follows the newly active note", async () => {
    const { app, plugin } = await loadPlugin();
    await openNote(app, HUT);
    const view = await relatedPane(app, plugin);
    const link = view.contentEl.querySelector<HTMLElement>('a[data-href="Places/Huts/Spring Box"]');
    expect(link).not.toBeNull();
    link!.dispatchEvent(new MouseEvent("mouseover", { bubbles: true }));
    expect(app.workspace.hovers).toEqual([{ linktext: "Places/Huts/Spring Box", source: RELATED_VIEW }]);
    link!.click();
    expect(app.workspace.opened.at(-1)).toEqual(["Places/Huts/Spring Box", "", false]);
    await until(() => app.workspace.getActiveFile()?.path === "Places/Huts/Spring Box.md", "the note to open");
    await until(() => view.uri === "Places/Huts/Spring Box", "the pane to follow");
    await view.rendered;
    expect(view.contentEl.querySelector(".vgr-related-title")?.textContent).toBe("Related to Spring Box");
  });

  it('"more" pages with exclude: the next notes, none shown twice', async () => {
    const { app, plugin } = await loadPlugin({ relatedBudget: 300 });
    await openNote(app, HUT);
    const view = await relatedPane(app, plugin);
    const first = items(view).map((li) => li.querySelector("a")!.getAttribute("data-href"));
    view.contentEl.querySelector<HTMLButtonElement>(".vgr-more")!.click();
    await until(() => items(view).length > first.length, "the next page");
    const all = items(view).map((li) => li.querySelector("a")!.getAttribute("data-href"));
    expect(all.slice(0, first.length)).toEqual(first);
    expect(new Set(all).size).toBe(all.length);
    const body = requests.filter((r) => r.path === "/focus");
    expect(body.length).toBe(2);
  });

  it("refreshes once the server has indexed an edit, with no request while typing", async () => {
    const debounce = 300;
    const { app, plugin } = await loadPlugin({ refreshDebounceMs: debounce });
    const uri = "Places/Huts/Zirbenkopf Bivouac";
    await openNote(app, uri);
    const view = await relatedPane(app, plugin);
    await plugin.checkStatus();
    const target = "People/Mira Halvorsen";
    expect(items(view).map((li) => li.querySelector("a")!.getAttribute("data-href"))).not.toContain(target);
    const file = new TFile(`${uri}.md`);
    const path = join(server.vault, file.path);
    const original = readFileSync(path, "utf8");
    try {
      requests.length = 0;
      const typed = "\nAsk [[Mira Halvorsen]] for the key.";
      for (let i = 1; i <= typed.length; i += 4) {
        await app.vault.modify(file, original + typed.slice(0, i));
        await new Promise((r) => setTimeout(r, 40));
      }
      await app.vault.modify(file, original + typed);
      expect(requests).toEqual([]); // typing only restarts the debounce timer
      await until(
        () => items(view).some((li) => li.querySelector("a")!.getAttribute("data-href") === target),
        "the pane to show the new link",
        20,
      );
      // One refresh per new generation, not per keystroke (~10 edits in 0.4 s).
      const refreshes = requests.filter((r) => r.path === "/focus").length;
      expect(refreshes).toBeGreaterThanOrEqual(1);
      expect(refreshes).toBeLessThanOrEqual(2);
    } finally {
      const before = (await client.status()).generation;
      writeFileSync(path, original);
      // Leave the server idle, with the note as it was, for the next tests.
      let status = await client.status();
      for (let i = 0; i < 200 && (status.generation === before || status.updating); i++) {
        await new Promise((r) => setTimeout(r, 100));
        status = await client.status();
      }
    }
  });
});

describe("status bar and errors", () => {
  it("shows the notes indexed", async () => {
    const { plugin } = await loadPlugin();
    await plugin.checkStatus();
    const status = await client.status();
    expect(plugin.statusEl.textContent).toBe(`vault-graphrag: ${status.counts.notes} notes`);
  });

  it("shows an update's progress", () => {
    const status = { counts: { notes: 6571 }, updating: true, progress: { phase: "embedding", done: 1204, total: 6571 } };
    expect(statusText(status as never)).toBe("vault-graphrag: indexing 1,204 / 6,571");
  });

  it("re-index: POST /index, then a notice with the notes indexed", async () => {
    const { app } = await loadPlugin();
    Notice.shown.length = 0;
    app.runCommand("reindex");
    await until(() => Notice.shown.length === 2, "the second notice");
    const notes = (await client.status()).counts.notes;
    expect(requests.filter((r) => r.path === "/index")).toEqual([{ method: "POST", path: "/index" }]);
    expect(Notice.shown).toEqual(["vault-graphrag: updating the index…", `vault-graphrag: index up to date (${notes} notes)`]);
  });

  it("server down: the status bar and the pane say how to start it, with this vault's path", async () => {
    const port = await freePort();
    const { app, plugin } = await loadPlugin({ serverUrl: `http://127.0.0.1:${port}` });
    await plugin.checkStatus();
    const start = `server not reachable — start it with \`vault-graphrag serve ${server.vault}\``;
    expect(plugin.statusEl.textContent).toBe(`vault-graphrag: ${start}`);
    await openNote(app, HUT);
    const view = await relatedPane(app, plugin);
    expect(view.contentEl.querySelector(".vgr-message")?.textContent).toBe(start);
  });

  it("server down on mobile (no vault path): a generic start message", async () => {
    const port = await freePort();
    const { plugin } = await loadPlugin({ serverUrl: `http://127.0.0.1:${port}` }, { mobile: true });
    await plugin.checkStatus();
    expect(plugin.statusEl.textContent).toContain("vault-graphrag serve <this vault's path>");
  });

  it("a 401 asks for the token once, saves it, and the pane then loads", async () => {
    const { app, plugin } = await loadPlugin({ token: "wrong" });
    await openNote(app, HUT);
    const view = await relatedPane(app, plugin);
    await plugin.checkStatus();
    expect(view.contentEl.textContent).toContain("needs a token");
    expect(app.modals.length).toBe(1); // the pane and the status bar both got 401: one prompt
    const modal = app.modals[0] as unknown as TokenModal;
    expect(modal).toBeInstanceOf(TokenModal);
    const input = modal.contentEl.querySelector("input")!;
    input.value = server.token;
    input.dispatchEvent(new Event("input"));
    modal.contentEl.querySelector("button")!.click();
    await until(() => app.modals.length === 0, "the prompt to close");
    expect(plugin.settings.token).toBe(server.token);
    expect((app.pluginData as Settings).token).toBe(server.token);
    await until(() => items(view).length > 0, "the pane to load with the token");
  });

  it("settings: test connection shows /status", async () => {
    const { app, plugin } = await loadPlugin();
    const tab = app.settingTabs[0];
    tab.display();
    const names = [...tab.containerEl.querySelectorAll<HTMLElement>("[data-name]")].map((e) => e.dataset.name);
    expect(names).toEqual(["Server URL", "Token", "Related notes budget", "Answer context budget", "Default model", "Test connection"]);
    [...tab.containerEl.querySelectorAll("button")].find((b) => b.textContent === "Test connection")!.click();
    const result = tab.containerEl.querySelector(".vgr-test-result")!;
    await until(() => result.textContent!.startsWith("Connected"), "the connection test");
    expect(result.textContent).toContain(`${(await client.status()).counts.notes} notes`);
    expect(plugin.settings.serverUrl).toBe(server.url);
  });
});

describe("search", () => {
  it("suggests notes with snippets as you type; choosing one opens it", async () => {
    const { app } = await loadPlugin();
    app.runCommand("search");
    const modal = app.modals[0] as unknown as SearchModal;
    const hits = await modal.getSuggestions("spring water trough");
    expect(hits.map((h) => h.uri)).toContain("Places/Huts/Spring Box");
    const el = document.createElement("div");
    modal.renderSuggestion(hits[0], el);
    expect(el.querySelector(".vgr-hit-snippet")?.textContent).toBe(hits[0].snippet);
    modal.onChooseSuggestion(hits[0]);
    await until(() => app.workspace.getActiveFile()?.path === `${hits[0].uri}.md`, "the note to open");
  });

  it("only the last of fast keystrokes is sent", async () => {
    const { app } = await loadPlugin();
    app.runCommand("search");
    const modal = app.modals[0] as unknown as SearchModal;
    const pending = ["s", "sp", "spr", "spring"].map((q) => modal.getSuggestions(q));
    const results = await Promise.race([Promise.all(pending.slice(-1)), new Promise((r) => setTimeout(r, 3000))]);
    expect(results).toBeDefined();
    expect(requests.filter((r) => r.path === "/search").length).toBe(1);
  });
});

/** Delays each SSE event of /ask responses by `ms`, so the view sees the stream arrive. */
function slowStream(ms: number): void {
  window.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const response = await realFetch(input, init);
    if (!String(input).endsWith("/ask") || !response.body) return response;
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    const encoder = new TextEncoder();
    let buffer = "";
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        for (;;) {
          const end = buffer.indexOf("\n\n");
          if (end >= 0) {
            await new Promise((r) => setTimeout(r, ms));
            controller.enqueue(encoder.encode(buffer.slice(0, end + 2)));
            buffer = buffer.slice(end + 2);
            return;
          }
          const { value, done } = await reader.read();
          if (done) return controller.close();
          buffer += decoder.decode(value, { stream: true });
        }
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(body, { status: response.status, headers: response.headers });
  }) as typeof fetch;
}

describe("ask pane", () => {
  async function askPane(settings: Partial<Settings> = {}): Promise<{ app: App; plugin: VaultGraphRagPlugin; view: AskView }> {
    const { app, plugin } = await loadPlugin(settings);
    await openNote(app, HUT);
    app.runCommand("ask-vault");
    const view = await plugin.openView<AskView>(ASK_VIEW);
    await view.pickersLoaded;
    return { app, plugin, view };
  }

  it("fills the model, folder and tag pickers from the server", async () => {
    const { view } = await askPane();
    const models = [...view.model.options].map((o) => o.value);
    expect(models).toEqual(expect.arrayContaining(["", "echo", "test-stream"]));
    view.setScope("folder", "Places/Huts");
    expect([...view.scopeValue.options].map((o) => o.value)).toContain("Places/Huts");
    view.setScope("tag");
    expect([...view.scopeValue.options].map((o) => o.value)).toContain("goats");
  });

  it("renders streamed chunks in order and citations as links that open the note", async () => {
    slowStream(200); // longer than the pane's 80 ms render throttle: each piece is painted
    const renders: string[] = [];
    const render = MarkdownRenderer.render;
    MarkdownRenderer.render = async (...args) => {
      renders.push(args[1]);
      return render(...args);
    };
    try {
      const { app, view } = await askPane({ defaultModel: "test-stream" });
      await view.ask("Where does the hut's water come from?");
      const final = "The spring feeds the trough ([[Places/Huts/Spring Box]]).";
      // Each render shows more of the answer, in the order the pieces came.
      expect(renders.length).toBeGreaterThanOrEqual(3);
      for (let i = 1; i < renders.length; i++) expect(renders[i].startsWith(renders[i - 1])).toBe(true);
      expect(renders).toContain("The spring ");
      expect(renders.at(-1)).toBe(final);
      const answer = view.conversation.querySelector(".vgr-answer")!;
      expect(answer.textContent?.trim()).toBe("The spring feeds the trough (Spring Box).");
      const cite = answer.querySelector<HTMLElement>('a.internal-link[data-href="Places/Huts/Spring Box"]');
      expect(cite).not.toBeNull();
      const sources = [...view.conversation.querySelectorAll(".vgr-source-list li")];
      expect(sources[0].className).toBe("vgr-cited");
      expect(sources[0].querySelector("a")!.getAttribute("data-href")).toBe("Places/Huts/Spring Box");
      expect(sources.slice(1).every((li) => li.className === "vgr-uncited")).toBe(true);
      cite!.click();
      await until(() => app.workspace.getActiveFile()?.path === "Places/Huts/Spring Box.md", "the cited note to open");
      expect(view.history).toEqual([{ question: "Where does the hut's water come from?", answer: final }]);
    } finally {
      MarkdownRenderer.render = render;
    }
  });

  it("Enter that confirms an input method's candidate does not send the question", async () => {
    const { view } = await askPane({ defaultModel: "echo" });
    const enter = (isComposing: boolean): void => {
      view.question.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", isComposing, bubbles: true, cancelable: true }));
    };
    view.question.value = "小屋の水はどこから";
    enter(true);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(view.conversation.querySelectorAll(".vgr-turn").length).toBe(0);
    expect(view.question.value).toBe("小屋の水はどこから");
    enter(false);
    await until(() => view.conversation.querySelectorAll(".vgr-turn").length === 1, "the question to be sent");
    expect(view.question.value).toBe("");
  });

  it("keeps the conversation: a follow-up sends the earlier turn as history", async () => {
    const bodies: unknown[] = [];
    window.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      if (String(input).endsWith("/ask")) bodies.push(JSON.parse(String(init?.body)));
      return realFetch(input, init);
    }) as typeof fetch;
    const { view } = await askPane({ defaultModel: "echo" });
    await view.ask("Who keeps the hut?");
    await view.ask("And who has the key in winter?");
    const answer = view.history[0].answer;
    expect(bodies[1]).toMatchObject({ question: "And who has the key in winter?", model: "echo", history: [{ question: "Who keeps the hut?", answer }] });
    expect(view.conversation.querySelectorAll(".vgr-turn").length).toBe(2);
  });

  it("stop cancels the stream: the server stops the model, the turn says stopped", async () => {
    const { view } = await askPane({ defaultModel: "js-slow" });
    const run = view.ask("Tell me everything about the hut.");
    const answer = (): string => view.conversation.querySelector(".vgr-answer")?.textContent ?? "";
    await until(() => answer().includes("word2"), "the first pieces");
    view.stop();
    await run;
    const turn = view.conversation.querySelector(".vgr-turn")!;
    expect(turn.classList.contains("vgr-stopped")).toBe(true);
    expect(turn.querySelector(".vgr-meta")!.textContent).toBe("stopped");
    expect(view.history).toEqual([]);
    expect(answer()).not.toContain("word100");
    // The disconnect reached the server: it closed the model's stream early.
    let closedAt = "";
    await until(() => {
      try {
        closedAt = readFileSync(server.slowClosed, "utf8");
      } catch {
        return false;
      }
      return true;
    }, "the server to stop the model", 10);
    expect(Number(closedAt)).toBeLessThan(100);
  });

  it("asks about this note (focus mode) and inserts the answer at the cursor", async () => {
    const { app, view } = await askPane({ defaultModel: "test-stream" });
    app.runCommand("ask-note");
    await until(() => view.scopeSelect.value === "note", "the note scope");
    const bodies: { note?: string }[] = [];
    window.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      if (String(input).endsWith("/ask")) bodies.push(JSON.parse(String(init?.body)));
      return realFetch(input, init);
    }) as typeof fetch;
    await view.ask("What is this hut?");
    expect(bodies[0].note).toBe(HUT);
    const editorView = app.workspace.getLeavesOfType("markdown")[0].view as MarkdownView;
    editorView.editor.setCursor({ line: 0, ch: 0 });
    const insert = [...view.conversation.querySelectorAll("button")].find((b) => b.textContent === "Insert at cursor")!;
    insert.click();
    expect(editorView.editor.getValue().startsWith(view.history[0].answer)).toBe(true);
  });
});
