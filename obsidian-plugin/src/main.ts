// The Obsidian plugin: a client of `vault-graphrag serve` (README "Obsidian plugin"). Obsidian
// APIs, requestUrl and fetch only (no Node modules), so it loads on mobile too.
import {
  FileSystemAdapter,
  MarkdownView,
  Notice,
  Plugin,
  type TAbstractFile,
  TFile,
  type WorkspaceLeaf,
} from "obsidian";
import {
  IndexBusyError,
  ServerUnreachableError,
  type Status,
  UnauthorizedError,
  VaultRagClient,
  uriOfPath,
} from "../../client";
import { ASK_VIEW, AskView } from "./ask-view";
import { describeError, startMessage } from "./messages";
import { RELATED_VIEW, RelatedView } from "./related-view";
import { SearchModal } from "./search-modal";
import { DEFAULT_SETTINGS, type Settings, SettingsTab } from "./settings";
import { statusText } from "./status-bar";
import { TokenModal } from "./token-modal";
import { requestUrlTransport } from "./transport";

const STATUS_EVERY_MS = 10_000;
/** After an edit: how often and how long to look for the generation that includes it. */
const UPDATE_POLL_MS = 500;
const UPDATE_POLL_TRIES = 30;

export default class VaultGraphRagPlugin extends Plugin {
  settings: Settings = { ...DEFAULT_SETTINGS };
  client!: VaultRagClient;
  statusEl!: HTMLElement;
  /** The served index generation last seen; a change refreshes the related pane. */
  generation: string | null = null;
  private lastMarkdownView: MarkdownView | null = null;
  private editTimer: number | null = null;
  private editGeneration: string | null = null;
  private polling: number | null = null;
  private tokenModal: TokenModal | null = null;

  async onload(): Promise<void> {
    await this.loadSettings();
    this.client = new VaultRagClient({
      baseUrl: this.settings.serverUrl,
      token: this.settings.token,
      transport: requestUrlTransport,
      fetch: (input, init) => window.fetch(input, init),
    });
    this.registerView(RELATED_VIEW, (leaf) => new RelatedView(leaf, this));
    this.registerView(ASK_VIEW, (leaf) => new AskView(leaf, this));
    this.registerHoverLinkSource(RELATED_VIEW, { display: "Vault GraphRAG: related notes", defaultMod: false });
    this.registerHoverLinkSource(ASK_VIEW, { display: "Vault GraphRAG: answers", defaultMod: true });
    this.addSettingTab(new SettingsTab(this.app, this));
    this.addCommands();
    this.addRibbonIcon("git-fork", "Vault GraphRAG: related notes", () => void this.openView(RELATED_VIEW));
    this.statusEl = this.addStatusBarItem();
    this.statusEl.classList.add("vgr-status");

    this.registerEvent(this.app.workspace.on("file-open", (file) => this.followFile(file)));
    this.registerEvent(
      this.app.workspace.on("active-leaf-change", (leaf: WorkspaceLeaf | null) => {
        if (leaf?.view instanceof MarkdownView) {
          this.lastMarkdownView = leaf.view;
          this.followFile(leaf.view.file);
        }
      }),
    );
    this.registerEvent(this.app.vault.on("modify", (file) => this.onModify(file)));
    this.registerInterval(window.setInterval(() => void this.checkStatus(), STATUS_EVERY_MS));
    this.app.workspace.onLayoutReady(() => void this.checkStatus());
  }

  onunload(): void {
    if (this.editTimer !== null) window.clearTimeout(this.editTimer);
    if (this.polling !== null) window.clearTimeout(this.polling);
  }

  async loadSettings(): Promise<void> {
    this.settings = { ...DEFAULT_SETTINGS, ...((await this.loadData()) as Partial<Settings> | null) };
  }

  async saveSettings(): Promise<void> {
    await this.saveData(this.settings);
    this.client.baseUrl = this.settings.serverUrl.replace(/\/+$/, "");
    this.client.token = this.settings.token || undefined;
  }

  private addCommands(): void {
    this.addCommand({ id: "show-related", name: "Show related notes", callback: () => void this.openView(RELATED_VIEW) });
    this.addCommand({
      id: "ask-note",
      name: "Ask about this note",
      checkCallback: (checking) => {
        const file = this.app.workspace.getActiveFile();
        if (!file || file.extension !== "md") return false;
        if (!checking) void this.openAsk("note", uriOfPath(file.path));
        return true;
      },
    });
    this.addCommand({ id: "ask-vault", name: "Ask the vault", callback: () => void this.openAsk("vault") });
    this.addCommand({
      id: "search",
      name: "Search the vault",
      callback: () => new SearchModal(this.app, this.client, (e) => this.reportError(e)).open(),
    });
    this.addCommand({ id: "reindex", name: "Re-index the vault", callback: () => void this.reindex() });
  }

  /** The open view of `type`, opened in the right sidebar if there is none. */
  async openView<T>(type: string): Promise<T> {
    let leaf = this.app.workspace.getLeavesOfType(type)[0];
    if (leaf === undefined) {
      leaf = this.app.workspace.getRightLeaf(false) as WorkspaceLeaf;
      await leaf.setViewState({ type, active: true });
    }
    await this.app.workspace.revealLeaf(leaf);
    return leaf.view as T;
  }

  async openAsk(scope: "vault" | "note", note?: string): Promise<AskView> {
    const view = await this.openView<AskView>(ASK_VIEW);
    view.setScope(scope, note);
    view.question.focus();
    return view;
  }

  relatedViews(): RelatedView[] {
    return this.app.workspace
      .getLeavesOfType(RELATED_VIEW)
      .map((leaf) => leaf.view)
      .filter((view): view is RelatedView => view instanceof RelatedView);
  }

  private followFile(file: TFile | null): void {
    for (const view of this.relatedViews()) view.showFile(file);
  }

  /**
   * An edit: once typing pauses for `refreshDebounceMs`, look for the index generation that
   * includes it (the server re-indexes on its own) and refresh the related pane when it appears.
   * Each keystroke only restarts the timer, so typing sends no requests.
   */
  private onModify(file: TAbstractFile): void {
    if (!(file instanceof TFile) || file.extension !== "md") return;
    // The generation before this burst of edits: a later one holds (some of) them.
    this.editGeneration ??= this.generation;
    if (this.editTimer !== null) window.clearTimeout(this.editTimer);
    this.editTimer = window.setTimeout(() => {
      this.editTimer = null;
      const before = this.editGeneration;
      this.editGeneration = null;
      this.pollForUpdate(before, UPDATE_POLL_TRIES);
    }, this.settings.refreshDebounceMs);
  }

  private pollForUpdate(before: string | null, tries: number): void {
    if (this.polling !== null) window.clearTimeout(this.polling);
    this.polling = null;
    void this.checkStatus().then((status) => {
      // Done once a later generation is served and no update is running (one may hold the rest).
      const seen = status === null || (status.generation !== before && !status.updating);
      if (!seen && tries > 1) {
        this.polling = window.setTimeout(() => this.pollForUpdate(before, tries - 1), UPDATE_POLL_MS);
      }
    });
  }

  /** Read /status into the status bar; a new generation refreshes the related pane. */
  async checkStatus(): Promise<Status | null> {
    try {
      const status = await this.client.status();
      this.statusEl.textContent = statusText(status);
      const changed = this.generation !== null && status.generation !== this.generation;
      this.generation = status.generation;
      if (changed) for (const view of this.relatedViews()) view.refresh();
      return status;
    } catch (error) {
      this.statusEl.textContent = `vault-graphrag: ${this.reportError(error)}`;
      return null;
    }
  }

  /** The user's sentence for a failure; a 401 also asks for the token (once at a time). */
  reportError(error: unknown): string {
    if (error instanceof UnauthorizedError) this.askForToken();
    if (error instanceof ServerUnreachableError) this.statusEl.textContent = `vault-graphrag: ${startMessage(this.vaultPath())}`;
    return describeError(error, this.vaultPath());
  }

  private askForToken(): void {
    if (this.tokenModal !== null) return;
    this.tokenModal = new TokenModal(this.app, async (token) => {
      this.settings.token = token;
      await this.saveSettings();
      this.tokenModal = null;
      void this.checkStatus();
      for (const view of this.relatedViews()) view.refresh();
    });
    this.tokenModal.open();
  }

  /** The vault's folder on desktop (for "start it with vault-graphrag serve PATH"); null on mobile. */
  vaultPath(): string | null {
    const adapter = this.app.vault.adapter;
    return adapter instanceof FileSystemAdapter ? adapter.getBasePath() : null;
  }

  async testConnection(): Promise<string> {
    try {
      const s = await this.client.status();
      return `Connected: ${(s.counts.notes ?? 0).toLocaleString("en")} notes, ${s.generation}, embeddings ${s.model}.`;
    } catch (error) {
      return describeError(error, this.vaultPath());
    }
  }

  async reindex(): Promise<void> {
    new Notice("vault-graphrag: updating the index…");
    try {
      const stats = (await this.client.reindex()) as { notes?: number; seconds?: number };
      new Notice(`vault-graphrag: index up to date (${stats.notes ?? "?"} notes)`);
      void this.checkStatus();
    } catch (error) {
      new Notice(
        error instanceof IndexBusyError ? "vault-graphrag: an update is already running" : `vault-graphrag: ${this.reportError(error)}`,
      );
    }
  }

  /** Insert text at the cursor of the note last edited (the ask pane itself has no cursor). */
  insertAtCursor(text: string): boolean {
    const view = this.lastMarkdownView ?? this.app.workspace.getActiveViewOfType(MarkdownView);
    if (view === null) {
      new Notice("Open a note to insert the answer into.");
      return false;
    }
    view.editor.replaceRange(text, view.editor.getCursor());
    return true;
  }
}
