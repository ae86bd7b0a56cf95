// The page at /: ask (streamed, cited), search, a note with its focus context, the index status.
// Everything goes through the shared client (client/), against the server that serves the page.
import {
  type AskRequest,
  CancelledError,
  NoteNotFoundError,
  type Source,
  ServerUnreachableError,
  type Status,
  type TagNode,
  type Turn,
  UnauthorizedError,
  VaultRagClient,
  citedFirst,
  el,
  obsidianUrl,
  relationSentence,
} from "../../client";
import { noteOfHref, renderMarkdown } from "./markdown";

const TOKEN_KEY = "vault-graphrag.token";
const STATUS_EVERY_MS = 5000;
const SEARCH_DEBOUNCE_MS = 250;
const RELATED_BUDGET = 1500;

const client = new VaultRagClient({ baseUrl: "", token: localStorage.getItem(TOKEN_KEY) ?? undefined });
const byId = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;

let status: Status | null = null;
let history: Turn[] = [];
let running: AbortController | null = null;

function noteLink(uri: string, title: string): HTMLElement {
  return el("a", { href: `#note=${encodeURIComponent(uri)}`, "data-uri": uri }, title);
}

// -- the token: asked for once, kept in this browser's storage --------------------------------
let tokenPrompt: Promise<void> | null = null;
function askToken(): Promise<void> {
  tokenPrompt ??= new Promise<void>((resolve) => {
    const dialog = byId<HTMLDialogElement>("token-dialog");
    byId("token-form").addEventListener(
      "submit",
      () => {
        const token = byId<HTMLInputElement>("token").value.trim();
        localStorage.setItem(TOKEN_KEY, token);
        client.token = token;
        tokenPrompt = null;
        resolve();
      },
      { once: true },
    );
    dialog.showModal();
  });
  return tokenPrompt;
}

/** Runs a call; a 401 asks for the token and runs it again. */
async function authed<T>(call: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof UnauthorizedError)) throw error;
      await askToken();
    }
  }
}

// -- status ----------------------------------------------------------------------------------
async function refreshStatus(): Promise<void> {
  const line = byId("status");
  try {
    status = await authed(() => client.status());
    const notes = status.counts.notes ?? 0;
    const p = status.progress;
    line.textContent = p
      ? `indexing: ${p.phase} ${p.done.toLocaleString()} / ${p.total.toLocaleString()}`
      : `${notes.toLocaleString()} notes indexed · ${status.generation}${status.updating ? " · updating" : ""}`;
    line.classList.remove("error");
  } catch (error) {
    line.textContent =
      error instanceof ServerUnreachableError ? "server not reachable" : `status: ${(error as Error).message}`;
    line.classList.add("error");
  }
}

// -- pickers (models, folders, tags) ------------------------------------------------------------
function option(value: string, label: string): HTMLOptionElement {
  return el("option", { value }, label);
}

function flattenTags(nodes: TagNode[], out: HTMLOptionElement[] = []): HTMLOptionElement[] {
  for (const node of nodes) {
    out.push(option(node.tag, `#${node.tag} (${node.count})`));
    flattenTags(node.children, out);
  }
  return out;
}

let scopeOptions: { folder: HTMLOptionElement[]; tag: HTMLOptionElement[] } = { folder: [], tag: [] };

async function loadPickers(): Promise<void> {
  const [models, folders, tags] = await Promise.all([
    authed(() => client.models()).catch(() => null),
    authed(() => client.folders()).catch(() => null),
    authed(() => client.tags()).catch(() => null),
  ]);
  const select = byId<HTMLSelectElement>("model");
  select.replaceChildren(option("", models?.default ? `default (${models.default})` : "server default"));
  for (const m of models?.models ?? []) select.append(option(m.id, m.name || m.id));
  scopeOptions = {
    folder: (folders?.folders ?? []).map((f) => option(f.path, `${f.path} (${f.notes})`)),
    tag: flattenTags(tags?.tags ?? []),
  };
  showScope();
}

function showScope(): void {
  const scope = byId<HTMLSelectElement>("scope").value;
  const value = byId<HTMLSelectElement>("scope-value");
  value.hidden = scope !== "folder" && scope !== "tag";
  byId("scope-note").hidden = scope !== "note";
  if (scope === "folder" || scope === "tag") value.replaceChildren(...scopeOptions[scope]);
}

// -- ask ---------------------------------------------------------------------------------------
function askRequest(question: string): AskRequest {
  const request: AskRequest = { question, history };
  const model = byId<HTMLSelectElement>("model").value;
  if (model) request.model = model;
  const scope = byId<HTMLSelectElement>("scope").value;
  const value = byId<HTMLSelectElement>("scope-value").value;
  if (scope === "folder" && value) request.filters = { folder: value };
  if (scope === "tag" && value) request.filters = { tag: value };
  const note = byId<HTMLInputElement>("scope-note").value.trim();
  if (scope === "note" && note) request.note = note;
  return request;
}

function sourceList(sources: Source[]): HTMLElement {
  return el(
    "ul",
    { class: "sources" },
    ...sources.map((s) =>
      el(
        "li",
        { class: s.cited ? "cited" : "uncited" },
        noteLink(s.uri, s.title),
        el("span", { class: "muted" }, s.cited ? " · cited" : " · given to the model"),
        s.relation ? el("div", { class: "why" }, s.relation) : null,
      ),
    ),
  );
}

async function ask(question: string): Promise<void> {
  const answer = el("div", { class: "answer markdown" });
  const meta = el("div", { class: "meta" }, "retrieving…");
  const sources = el("div", { class: "sources-box" });
  const turn = el("div", { class: "turn" }, el("div", { class: "q" }, question), answer, sources, meta);
  byId("conversation").append(turn);
  const controller = new AbortController();
  running = controller;
  setRunning(true);
  let text = "";
  let frame = 0;
  const paint = (): void => {
    frame = 0;
    answer.innerHTML = renderMarkdown(text);
  };
  try {
    const request = askRequest(question);
    const done = await authed(() =>
      client.ask(
        request,
        {
          onContext: (context) => {
            meta.textContent = `${context.sources.length} notes given to ${context.model || "the model"}…`;
            sources.replaceChildren(sourceList(context.sources));
          },
          onDelta: (piece) => {
            text += piece;
            frame ||= requestAnimationFrame(paint);
          },
        },
        controller.signal,
      ),
    );
    text = done.answer;
    paint();
    sources.replaceChildren(sourceList(citedFirst(done.sources, done.cited)));
    const secs = done.seconds.retrieval + done.seconds.model;
    meta.textContent = done.nothingFound ? "nothing found in the vault" : `answered in ${secs.toFixed(1)} s`;
    history = [...history, { question, answer: done.answer }];
  } catch (error) {
    if (frame) cancelAnimationFrame(frame);
    paint();
    turn.classList.add(error instanceof CancelledError ? "stopped" : "error");
    meta.textContent = error instanceof CancelledError ? "stopped" : (error as Error).message;
  } finally {
    running = null;
    setRunning(false);
  }
}

function setRunning(on: boolean): void {
  byId("stop").hidden = !on;
  byId<HTMLButtonElement>("ask-button").disabled = on;
}

// -- search ------------------------------------------------------------------------------------
let searchTimer = 0;
let searching: AbortController | null = null;
function search(query: string): void {
  clearTimeout(searchTimer);
  searching?.abort();
  const list = byId("search-results");
  if (!query.trim()) {
    list.replaceChildren();
    return;
  }
  searchTimer = window.setTimeout(async () => {
    const controller = new AbortController();
    searching = controller;
    try {
      const result = await authed(() => client.search(query, { top_k: 10 }, controller.signal));
      list.replaceChildren(
        ...result.results.map((hit) =>
          el(
            "li",
            {},
            noteLink(hit.uri, hit.title),
            hit.heading ? el("div", { class: "muted" }, hit.heading) : null,
            el("div", { class: "snippet" }, hit.snippet ?? ""),
          ),
        ),
      );
      if (result.results.length === 0) list.replaceChildren(el("li", { class: "muted" }, "no match"));
    } catch (error) {
      if (!(error instanceof CancelledError)) list.replaceChildren(el("li", { class: "error" }, (error as Error).message));
    }
  }, SEARCH_DEBOUNCE_MS);
}

// -- one note: its text and its focus context ----------------------------------------------
async function openNote(target: string): Promise<void> {
  const panel = byId("note");
  panel.hidden = false;
  try {
    const note = await authed(() => client.note(target));
    const context = await authed(() => client.focus(note.uri, { budget: RELATED_BUDGET }));
    byId("note-title").textContent = note.title;
    byId("note-path").textContent = note.path;
    const open = byId<HTMLAnchorElement>("note-open");
    open.hidden = !status?.vault;
    if (status?.vault) open.href = obsidianUrl(status.vault, note.uri);
    byId("related").replaceChildren(
      ...context.relatedNotes.map((r) =>
        el("li", {}, noteLink(r.uri, r.title), el("div", { class: "why" }, relationSentence(r, note.title))),
      ),
    );
    byId("note-body").innerHTML = renderMarkdown(note.details);
  } catch (error) {
    byId("note-title").textContent =
      error instanceof NoteNotFoundError ? `No note "${target}"` : `Could not open "${target}"`;
    byId("note-path").textContent =
      error instanceof NoteNotFoundError && error.suggestions.length
        ? `Did you mean: ${error.suggestions.join(", ")}`
        : (error as Error).message;
    byId("related").replaceChildren();
    byId("note-body").replaceChildren();
  }
  panel.scrollIntoView({ block: "nearest" });
}

// -- wiring ------------------------------------------------------------------------------------
function start(): void {
  byId("ask-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const box = byId<HTMLTextAreaElement>("question");
    const question = box.value.trim();
    if (!question || running) return;
    box.value = "";
    void ask(question);
  });
  byId("question").addEventListener("keydown", (event) => {
    // Not while an input method composes (Chinese, Japanese...): its Enter picks a candidate.
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      byId<HTMLFormElement>("ask-form").requestSubmit();
    }
  });
  byId("stop").addEventListener("click", () => running?.abort());
  byId("new-chat").addEventListener("click", () => {
    running?.abort();
    history = [];
    byId("conversation").replaceChildren();
  });
  byId("scope").addEventListener("change", showScope);
  byId("search-form").addEventListener("submit", (event) => event.preventDefault());
  byId("search").addEventListener("input", (event) => search((event.target as HTMLInputElement).value));
  document.addEventListener("click", (event) => {
    const link = (event.target as Element).closest?.("a");
    const target = link?.dataset.uri ?? noteOfHref(link?.getAttribute("href") ?? null);
    if (link && target) {
      event.preventDefault();
      void openNote(target);
    }
  });
  void refreshStatus().then(loadPickers);
  window.setInterval(() => void refreshStatus(), STATUS_EVERY_MS);
}

start();
