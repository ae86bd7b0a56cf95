// The related notes pane: the active note's focus context, each related note with the sentence
// saying how it relates, in the server's score order. Click opens, hover previews, "more" pages.
import { ItemView, type TFile, type WorkspaceLeaf } from "obsidian";
import { type FocusResult, type RelatedNote, el, relationSentence, uriOfPath } from "../../client";
import { handleLinks } from "./links";
import type VaultGraphRagPlugin from "./main";

export const RELATED_VIEW = "vault-graphrag-related";
// A fixed seed: the same note shows the same list (no reshuffling on every refresh).
const SEED = 1;

export class RelatedView extends ItemView {
  /** The note shown (its uri), or null. */
  uri: string | null = null;
  private focusTitle = "";
  private shown: RelatedNote[] = [];
  private request = 0;
  /** Settles when the latest load has rendered (tests and the benchmark wait on it). */
  rendered: Promise<void> = Promise.resolve();

  constructor(
    leaf: WorkspaceLeaf,
    private readonly plugin: VaultGraphRagPlugin,
  ) {
    super(leaf);
    this.navigation = false;
  }

  getViewType(): string {
    return RELATED_VIEW;
  }

  getDisplayText(): string {
    return "Related notes";
  }

  getIcon(): string {
    return "git-fork";
  }

  async onOpen(): Promise<void> {
    this.contentEl.classList.add("vgr-related");
    handleLinks(this, RELATED_VIEW);
    this.showFile(this.app.workspace.getActiveFile());
  }

  /** Follow a newly active file (null or a non-note keeps the current one). */
  showFile(file: TFile | null): void {
    if (file === null || file.extension !== "md") {
      if (this.uri === null) this.message("Open a note to see how other notes relate to it.");
      return;
    }
    const uri = uriOfPath(file.path);
    if (uri !== this.uri) this.loadNote(uri);
  }

  /** Load the focus context again (the server picked up an edit). */
  refresh(): void {
    if (this.uri !== null) this.loadNote(this.uri);
  }

  private loadNote(uri: string): void {
    this.uri = uri;
    const id = ++this.request;
    this.rendered = this.plugin.client
      .focus(uri, { budget: this.plugin.settings.relatedBudget, seed: SEED })
      .then((result) => {
        if (id === this.request) this.render(result);
      })
      .catch((error: unknown) => {
        if (id === this.request) this.message(this.plugin.reportError(error));
      });
  }

  /** The next page: the next-best notes under a fresh budget, without those shown. */
  async more(): Promise<void> {
    if (this.uri === null) return;
    const uri = this.uri;
    const id = this.request;
    try {
      const result = await this.plugin.client.focus(uri, {
        budget: this.plugin.settings.relatedBudget,
        seed: SEED,
        exclude: this.shown.map((n) => n.uri),
      });
      if (id !== this.request) return;
      this.shown = [...this.shown, ...result.relatedNotes];
      this.renderList(result.relatedNotes.length === 0);
    } catch (error) {
      if (id === this.request) this.message(this.plugin.reportError(error));
    }
  }

  private render(result: FocusResult): void {
    this.focusTitle = result.focusNote.title;
    this.shown = result.relatedNotes;
    this.renderList(false);
  }

  private renderList(exhausted: boolean): void {
    const items = this.shown.map((note) =>
      el(
        "li",
        { class: "vgr-related-item" },
        el("a", { class: "internal-link", "data-href": note.uri, href: note.uri }, note.title),
        el("div", { class: "vgr-why" }, relationSentence(note, this.focusTitle)),
      ),
    );
    const more = el("button", { class: "vgr-more" }, exhausted ? "no more related notes" : "more");
    if (exhausted) more.setAttribute("disabled", "");
    else more.addEventListener("click", () => void this.more());
    this.contentEl.replaceChildren(el("div", { class: "vgr-related-title" }, `Related to ${this.focusTitle}`));
    if (items.length) this.contentEl.append(el("ul", { class: "vgr-related-list" }, ...items), more);
    else this.contentEl.append(el("p", {}, "No related notes."));
  }

  private message(text: string): void {
    this.contentEl.replaceChildren(el("p", { class: "vgr-message" }, text));
  }
}
