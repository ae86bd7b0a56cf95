// Search as you type over /search (hybrid): title, heading and snippet; Enter opens the note.
import { type App, SuggestModal } from "obsidian";
import { CancelledError, type SearchHit, type VaultRagClient, el } from "../../client";

const DEBOUNCE_MS = 200;

export class SearchModal extends SuggestModal<SearchHit> {
  private timer: number | null = null;
  private inflight: AbortController | null = null;

  constructor(
    app: App,
    private readonly client: VaultRagClient,
    private readonly onError: (error: unknown) => string,
  ) {
    super(app);
    this.setPlaceholder("Search the vault (words and meaning)");
    this.emptyStateText = "No matching notes";
  }

  /** Results for what is typed; earlier keystrokes' requests are dropped (debounced, aborted). */
  getSuggestions(query: string): Promise<SearchHit[]> {
    if (this.timer !== null) window.clearTimeout(this.timer);
    this.inflight?.abort();
    if (!query.trim()) return Promise.resolve([]);
    return new Promise((resolve) => {
      this.timer = window.setTimeout(async () => {
        const controller = new AbortController();
        this.inflight = controller;
        try {
          resolve((await this.client.search(query, { top_k: 20 }, controller.signal)).results);
        } catch (error) {
          if (!(error instanceof CancelledError)) this.emptyStateText = this.onError(error);
          resolve([]);
        }
      }, DEBOUNCE_MS);
    });
  }

  renderSuggestion(hit: SearchHit, target: HTMLElement): void {
    target.append(el("div", { class: "vgr-hit-title" }, hit.title));
    if (hit.heading) target.append(el("small", { class: "vgr-hit-heading" }, hit.heading));
    target.append(el("div", { class: "vgr-hit-snippet" }, hit.snippet ?? ""));
  }

  onChooseSuggestion(hit: SearchHit): void {
    void this.app.workspace.openLinkText(hit.uri, "", false);
  }
}
