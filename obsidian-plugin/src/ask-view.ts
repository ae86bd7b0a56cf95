// The ask pane: a conversation with the vault. The answer streams in, rendered as Markdown with
// [[citations]] as internal links; sources follow, cited ones first; Stop cancels the stream.
import { ItemView, MarkdownRenderer, Notice, type WorkspaceLeaf } from "obsidian";
import {
  type AskRequest,
  CancelledError,
  type Source,
  type TagNode,
  type Turn,
  citedFirst,
  el,
  uriOfPath,
} from "../../client";
import { handleLinks } from "./links";
import type VaultGraphRagPlugin from "./main";

export const ASK_VIEW = "vault-graphrag-ask";
const RENDER_EVERY_MS = 80;

export type Scope = "vault" | "note" | "folder" | "tag";

export class AskView extends ItemView {
  history: Turn[] = [];
  running: AbortController | null = null;
  /** The note of "this note" scope (set by "ask about this note"; else the active note). */
  scopeNote: string | null = null;
  question!: HTMLTextAreaElement;
  scopeSelect!: HTMLSelectElement;
  scopeValue!: HTMLSelectElement;
  model!: HTMLSelectElement;
  conversation!: HTMLElement;
  private askButton!: HTMLButtonElement;
  private stopButton!: HTMLButtonElement;
  private folders: string[] = [];
  private tags: string[] = [];
  /** Settles when the pickers are filled. */
  pickersLoaded: Promise<void> = Promise.resolve();

  constructor(
    leaf: WorkspaceLeaf,
    private readonly plugin: VaultGraphRagPlugin,
  ) {
    super(leaf);
  }

  getViewType(): string {
    return ASK_VIEW;
  }

  getDisplayText(): string {
    return "Ask the vault";
  }

  getIcon(): string {
    return "message-circle";
  }

  async onOpen(): Promise<void> {
    this.contentEl.classList.add("vgr-ask");
    this.conversation = el("div", { class: "vgr-conversation" });
    this.question = el("textarea", { class: "vgr-question", rows: "3", placeholder: "Ask your vault…" });
    this.scopeSelect = el(
      "select",
      { class: "vgr-scope", "aria-label": "scope" },
      el("option", { value: "vault" }, "whole vault"),
      el("option", { value: "note" }, "this note"),
      el("option", { value: "folder" }, "a folder"),
      el("option", { value: "tag" }, "a tag"),
    );
    this.scopeValue = el("select", { class: "vgr-scope-value", "aria-label": "folder or tag" });
    this.model = el("select", { class: "vgr-model", "aria-label": "model" });
    this.askButton = el("button", { class: "mod-cta vgr-ask-button" }, "Ask");
    this.stopButton = el("button", { class: "vgr-stop" }, "Stop");
    const newChat = el("button", { class: "vgr-new" }, "New conversation");
    this.stopButton.hidden = true;
    this.scopeSelect.addEventListener("change", () => this.showScope());
    this.askButton.addEventListener("click", () => void this.submit());
    this.stopButton.addEventListener("click", () => this.stop());
    newChat.addEventListener("click", () => this.clear());
    this.question.addEventListener("keydown", (event) => {
      // Not while an input method composes (Chinese, Japanese...): its Enter picks a candidate.
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        void this.submit();
      }
    });
    this.contentEl.replaceChildren(
      this.conversation,
      el(
        "div",
        { class: "vgr-ask-form" },
        this.question,
        el("div", { class: "vgr-row" }, this.scopeSelect, this.scopeValue, this.model),
        el("div", { class: "vgr-row" }, this.askButton, this.stopButton, newChat),
      ),
    );
    handleLinks(this, ASK_VIEW);
    this.showScope();
    this.pickersLoaded = this.loadPickers();
  }

  async onClose(): Promise<void> {
    this.stop();
  }

  /** Fill the model, folder and tag pickers from the server. */
  async loadPickers(): Promise<void> {
    const c = this.plugin.client;
    const [models, folders, tags] = await Promise.all([
      c.models().catch(() => null),
      c.folders().catch(() => null),
      c.tags().catch(() => null),
    ]);
    const preferred = this.plugin.settings.defaultModel;
    const fallback = models?.default ? `server default (${models.default})` : "server default";
    this.model.replaceChildren(el("option", { value: "" }, fallback));
    for (const m of models?.models ?? []) this.model.append(el("option", { value: m.id }, m.name || m.id));
    this.model.value = preferred && [...this.model.options].some((o) => o.value === preferred) ? preferred : "";
    this.folders = (folders?.folders ?? []).map((f) => f.path);
    const flat = (nodes: TagNode[]): string[] => nodes.flatMap((n) => [n.tag, ...flat(n.children)]);
    this.tags = flat(tags?.tags ?? []);
    this.showScope();
  }

  setScope(scope: Scope, value?: string): void {
    this.scopeSelect.value = scope;
    if (scope === "note") this.scopeNote = value ?? null;
    this.showScope();
    if (value !== undefined && (scope === "folder" || scope === "tag")) this.scopeValue.value = value;
  }

  private showScope(): void {
    const scope = this.scopeSelect.value as Scope;
    this.scopeValue.hidden = scope !== "folder" && scope !== "tag";
    if (scope === "folder" || scope === "tag") {
      const values = scope === "folder" ? this.folders : this.tags;
      const keep = this.scopeValue.value;
      this.scopeValue.replaceChildren(
        ...values.map((v) => el("option", { value: v }, scope === "tag" ? `#${v}` : v)),
      );
      if (values.includes(keep)) this.scopeValue.value = keep;
    }
  }

  private request(question: string): AskRequest {
    const request: AskRequest = { question, budget: this.plugin.settings.askBudget, history: this.history };
    const model = this.model.value || this.plugin.settings.defaultModel;
    if (model) request.model = model;
    const scope = this.scopeSelect.value as Scope;
    if (scope === "note") {
      const active = this.app.workspace.getActiveFile();
      const note = this.scopeNote ?? (active ? uriOfPath(active.path) : null);
      if (note) request.note = note;
    } else if (scope === "folder" && this.scopeValue.value) {
      request.filters = { folder: this.scopeValue.value };
    } else if (scope === "tag" && this.scopeValue.value) {
      request.filters = { tag: this.scopeValue.value };
    }
    return request;
  }

  async submit(): Promise<void> {
    const question = this.question.value.trim();
    if (!question || this.running) return;
    this.question.value = "";
    await this.ask(question);
  }

  /** Ask one question of the conversation; resolves when the answer is complete or stopped. */
  async ask(question: string): Promise<void> {
    const answerEl = el("div", { class: "vgr-answer markdown-rendered" });
    const sourcesEl = el("div", { class: "vgr-sources" });
    const meta = el("div", { class: "vgr-meta" }, "retrieving…");
    const turn = el("div", { class: "vgr-turn" }, el("div", { class: "vgr-q" }, question), answerEl, sourcesEl, meta);
    this.conversation.append(turn);
    const controller = new AbortController();
    this.running = controller;
    this.setRunning(true);
    let text = "";
    let timer: number | null = null;
    let painting: Promise<void> = Promise.resolve();
    const paint = (): Promise<void> => {
      timer = null;
      const markdown = text;
      painting = painting.then(() => this.renderMarkdown(markdown, answerEl));
      return painting;
    };
    try {
      const done = await this.plugin.client.ask(
        this.request(question),
        {
          onContext: (context) => {
            meta.textContent = `${context.sources.length} notes given to ${context.model || "the model"}…`;
            sourcesEl.replaceChildren(this.sourceList(context.sources));
          },
          onDelta: (piece) => {
            text += piece;
            timer ??= window.setTimeout(() => void paint(), RENDER_EVERY_MS);
          },
        },
        controller.signal,
      );
      if (timer !== null) window.clearTimeout(timer);
      text = done.answer;
      await paint();
      sourcesEl.replaceChildren(this.sourceList(citedFirst(done.sources, done.cited)));
      meta.replaceChildren(
        done.nothingFound ? "nothing in the vault matches" : `${(done.seconds.retrieval + done.seconds.model).toFixed(1)} s`,
        this.action("Copy", () => void navigator.clipboard.writeText(done.answer)),
        this.action("Insert at cursor", () => this.plugin.insertAtCursor(done.answer)),
      );
      this.history = [...this.history, { question, answer: done.answer }];
    } catch (error) {
      if (timer !== null) window.clearTimeout(timer);
      await paint();
      turn.classList.add(error instanceof CancelledError ? "vgr-stopped" : "vgr-error");
      meta.textContent = this.plugin.reportError(error);
    } finally {
      this.running = null;
      this.setRunning(false);
    }
  }

  stop(): void {
    this.running?.abort();
  }

  clear(): void {
    this.stop();
    this.history = [];
    this.conversation.replaceChildren();
  }

  private async renderMarkdown(markdown: string, target: HTMLElement): Promise<void> {
    const fresh = el("div");
    await MarkdownRenderer.render(this.app, markdown, fresh, "", this);
    target.replaceChildren(...Array.from(fresh.childNodes));
  }

  private sourceList(sources: Source[]): HTMLElement {
    return el(
      "ul",
      { class: "vgr-source-list" },
      ...sources.map((s) =>
        el(
          "li",
          { class: s.cited ? "vgr-cited" : "vgr-uncited" },
          el("a", { class: "internal-link", "data-href": s.uri, href: s.uri }, s.title),
          el("span", { class: "vgr-muted" }, s.cited ? " · cited" : " · given to the model"),
          s.relation ? el("div", { class: "vgr-why" }, s.relation) : null,
        ),
      ),
    );
  }

  private action(label: string, run: () => void): HTMLElement {
    const button = el("button", { class: "vgr-action" }, label);
    button.addEventListener("click", () => {
      run();
      new Notice(`${label}: done`);
    });
    return button;
  }

  private setRunning(on: boolean): void {
    this.stopButton.hidden = !on;
    this.askButton.disabled = on;
  }
}
