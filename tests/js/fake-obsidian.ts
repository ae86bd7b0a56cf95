// A small fake of the `obsidian` module for the plugin's tests (vitest aliases "obsidian" here).
// It models what the plugin uses: a workspace with leaves, views and events, a vault backed by a
// real folder (the test server's copy of sample_vault), MarkdownRenderer (Markdown + wikilinks as
// `a.internal-link`, as Obsidian renders them), modals, settings, Notice and requestUrl (over
// node:http, so, as in Obsidian, it is not subject to CORS). What it records (links opened,
// hover events, notices, modals, requests) is what the tests assert on.
import { readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { basename, extname, join, relative, sep } from "node:path";
import MarkdownIt from "markdown-it";
import { replaceWikiLinks } from "../../client/wikilinks";

type Callback = (...args: any[]) => unknown;
export interface EventRef {
  name: string;
  callback: Callback;
}

export class Events {
  private handlers = new Map<string, Callback[]>();
  on(name: string, callback: Callback): EventRef {
    this.handlers.set(name, [...(this.handlers.get(name) ?? []), callback]);
    return { name, callback };
  }
  offref(ref: EventRef): void {
    this.handlers.set(ref.name, (this.handlers.get(ref.name) ?? []).filter((c) => c !== ref.callback));
  }
  trigger(name: string, ...data: unknown[]): void {
    for (const callback of this.handlers.get(name) ?? []) callback(...data);
  }
}

export class Component {
  private cleanups: (() => void)[] = [];
  load(): void {
    this.onload();
  }
  onload(): void {}
  unload(): void {
    for (const cleanup of this.cleanups.splice(0)) cleanup();
    this.onunload();
  }
  onunload(): void {}
  register(cleanup: () => void): void {
    this.cleanups.push(cleanup);
  }
  registerEvent(ref: EventRef & { owner?: Events }): void {
    this.register(() => ref.owner?.offref(ref));
  }
  registerInterval(id: number): number {
    this.register(() => window.clearInterval(id));
    return id;
  }
  registerDomEvent(el: EventTarget, type: string, callback: EventListener): void {
    el.addEventListener(type, callback);
    this.register(() => el.removeEventListener(type, callback));
  }
}

// -- files -------------------------------------------------------------------------------------
export class TAbstractFile {
  constructor(
    public path: string,
    public name: string,
  ) {}
}

export class TFile extends TAbstractFile {
  basename: string;
  extension: string;
  constructor(path: string) {
    super(path, basename(path));
    this.extension = extname(path).slice(1);
    this.basename = basename(path, extname(path));
  }
}

export class FileSystemAdapter {
  constructor(private readonly basePath: string) {}
  getBasePath(): string {
    return this.basePath;
  }
}

export class Vault extends Events {
  adapter: FileSystemAdapter | object;
  constructor(
    readonly basePath: string,
    mobile = false,
  ) {
    super();
    this.adapter = mobile ? {} : new FileSystemAdapter(basePath);
  }
  override on(name: string, callback: Callback): EventRef {
    return Object.assign(super.on(name, callback), { owner: this });
  }
  getName(): string {
    return basename(this.basePath);
  }
  getAbstractFileByPath(path: string): TFile | null {
    try {
      return statSync(join(this.basePath, path)).isFile() ? new TFile(path) : null;
    } catch {
      return null;
    }
  }
  getMarkdownFiles(): TFile[] {
    const out: TFile[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (entry.name.startsWith(".")) continue;
        const full = join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.name.endsWith(".md")) out.push(new TFile(relative(this.basePath, full).split(sep).join("/")));
      }
    };
    walk(this.basePath);
    return out;
  }
  async read(file: TFile): Promise<string> {
    return readFileSync(join(this.basePath, file.path), "utf8");
  }
  /** Writes the real file (the server's watcher sees it) and fires "modify", as Obsidian does. */
  async modify(file: TFile, data: string): Promise<void> {
    writeFileSync(join(this.basePath, file.path), data);
    this.trigger("modify", file);
  }
}

// -- views and the workspace ---------------------------------------------------------------
export class View extends Component {
  app: App;
  containerEl: HTMLElement;
  navigation = true;
  constructor(public leaf: WorkspaceLeaf) {
    super();
    this.app = leaf.app;
    this.containerEl = document.createElement("div");
  }
  getViewType(): string {
    return "";
  }
  getDisplayText(): string {
    return "";
  }
  getIcon(): string {
    return "";
  }
  async onOpen(): Promise<void> {}
  async onClose(): Promise<void> {}
}

export class ItemView extends View {
  contentEl: HTMLElement;
  constructor(leaf: WorkspaceLeaf) {
    super(leaf);
    this.containerEl.append(document.createElement("div"), document.createElement("div"));
    this.contentEl = this.containerEl.children[1] as HTMLElement;
    document.body.append(this.containerEl);
  }
}

export class Editor {
  constructor(
    private text: string,
    private cursor = { line: 0, ch: 0 },
  ) {}
  getValue(): string {
    return this.text;
  }
  getCursor(): { line: number; ch: number } {
    return this.cursor;
  }
  setCursor(pos: { line: number; ch: number }): void {
    this.cursor = pos;
  }
  replaceRange(insert: string, from: { line: number; ch: number }): void {
    const lines = this.text.split("\n");
    const offset = lines.slice(0, from.line).reduce((n, l) => n + l.length + 1, 0) + from.ch;
    this.text = this.text.slice(0, offset) + insert + this.text.slice(offset);
  }
}

export class MarkdownView extends ItemView {
  editor: Editor;
  constructor(
    leaf: WorkspaceLeaf,
    public file: TFile,
  ) {
    super(leaf);
    this.editor = new Editor(readFileSync(join(leaf.app.vault.basePath, file.path), "utf8"));
  }
  override getViewType(): string {
    return "markdown";
  }
}

export class WorkspaceLeaf {
  view: View;
  constructor(public app: App) {
    this.view = new View(this);
  }
  async setViewState(state: { type: string; active?: boolean }): Promise<void> {
    const factory = this.app.workspace.factories.get(state.type);
    if (!factory) throw new Error(`no view registered for ${state.type}`);
    this.view = factory(this);
    await this.view.onOpen();
    if (state.active) this.app.workspace.setActiveLeaf(this);
  }
  async openFile(file: TFile): Promise<void> {
    this.view = new MarkdownView(this, file);
    this.app.workspace.setActiveLeaf(this);
    this.app.workspace.trigger("file-open", file);
  }
}

export class Workspace extends Events {
  factories = new Map<string, (leaf: WorkspaceLeaf) => View>();
  leaves: WorkspaceLeaf[] = [];
  activeLeaf: WorkspaceLeaf | null = null;
  private lastFile: TFile | null = null;
  /** Every openLinkText call: [linktext, sourcePath, newLeaf]. */
  opened: [string, string, boolean][] = [];
  hovers: { linktext: string; source: string }[] = [];

  constructor(private readonly app: App) {
    super();
  }
  override on(name: string, callback: Callback): EventRef {
    return Object.assign(super.on(name, callback), { owner: this });
  }
  override trigger(name: string, ...data: unknown[]): void {
    if (name === "hover-link") {
      const info = data[0] as { linktext: string; source: string };
      this.hovers.push({ linktext: info.linktext, source: info.source });
    }
    super.trigger(name, ...data);
  }
  onLayoutReady(callback: () => void): void {
    callback();
  }
  getLeavesOfType(type: string): WorkspaceLeaf[] {
    return this.leaves.filter((leaf) => leaf.view.getViewType() === type);
  }
  private newLeaf(): WorkspaceLeaf {
    const leaf = new WorkspaceLeaf(this.app);
    this.leaves.push(leaf);
    return leaf;
  }
  getRightLeaf(_split: boolean): WorkspaceLeaf {
    return this.newLeaf();
  }
  /** The main editor leaf (made on first use). */
  getLeaf(newLeaf = false): WorkspaceLeaf {
    const existing = this.leaves.find((leaf) => leaf.view instanceof MarkdownView);
    return !newLeaf && existing ? existing : this.newLeaf();
  }
  async revealLeaf(_leaf: WorkspaceLeaf): Promise<void> {}
  setActiveLeaf(leaf: WorkspaceLeaf): void {
    this.activeLeaf = leaf;
    if (leaf.view instanceof MarkdownView) this.lastFile = leaf.view.file;
    this.trigger("active-leaf-change", leaf);
  }
  getActiveFile(): TFile | null {
    return this.lastFile;
  }
  getActiveViewOfType<T>(type: abstract new (...args: any[]) => T): T | null {
    const view = this.activeLeaf?.view;
    return view instanceof type ? (view as T) : null;
  }
  /** Resolves like Obsidian for what the plugin passes: a vault path without ".md", or a name. */
  async openLinkText(linktext: string, sourcePath: string, newLeaf = false): Promise<void> {
    this.opened.push([linktext, sourcePath, newLeaf]);
    const vault = this.app.vault;
    const file =
      vault.getAbstractFileByPath(`${linktext}.md`) ??
      vault.getMarkdownFiles().find((f) => f.basename.toLowerCase() === linktext.toLowerCase()) ??
      null;
    if (file) await this.getLeaf(newLeaf).openFile(file);
  }
}

export class App {
  workspace: Workspace;
  vault: Vault;
  /** What Plugin.loadData returns (the plugin's data.json). */
  pluginData: unknown = null;
  commands = new Map<string, { id: string; name: string; callback?: () => unknown; checkCallback?: (c: boolean) => unknown }>();
  settingTabs: PluginSettingTab[] = [];
  modals: Modal[] = [];
  statusBar: HTMLElement = document.createElement("div");
  constructor(vaultPath: string, options: { mobile?: boolean } = {}) {
    this.vault = new Vault(vaultPath, options.mobile);
    this.workspace = new Workspace(this);
  }
  /** Run a command as the palette does. */
  runCommand(id: string): unknown {
    const command = this.commands.get(id);
    if (!command) throw new Error(`no command ${id}`);
    if (command.checkCallback) return command.checkCallback(false);
    return command.callback?.();
  }
}

export interface PluginManifest {
  id: string;
  name: string;
  version: string;
}

export class Plugin extends Component {
  constructor(
    public app: App,
    public manifest: PluginManifest,
  ) {
    super();
  }
  async loadData(): Promise<unknown> {
    return structuredClone(this.app.pluginData);
  }
  async saveData(data: unknown): Promise<void> {
    this.app.pluginData = structuredClone(data);
  }
  registerView(type: string, factory: (leaf: WorkspaceLeaf) => View): void {
    this.app.workspace.factories.set(type, factory);
  }
  registerHoverLinkSource(_id: string, _info: unknown): void {}
  addCommand(command: { id: string; name: string }): void {
    this.app.commands.set(command.id, command);
  }
  addSettingTab(tab: PluginSettingTab): void {
    this.app.settingTabs.push(tab);
  }
  addStatusBarItem(): HTMLElement {
    const item = document.createElement("div");
    this.app.statusBar.append(item);
    return item;
  }
  addRibbonIcon(_icon: string, _title: string, _callback: () => void): HTMLElement {
    return document.createElement("div");
  }
}

// -- modals and settings ---------------------------------------------------------------------
export class Modal {
  containerEl = document.createElement("div");
  titleEl = document.createElement("div");
  contentEl = document.createElement("div");
  constructor(public app: App) {
    this.containerEl.append(this.titleEl, this.contentEl);
  }
  open(): void {
    this.app.modals.push(this);
    document.body.append(this.containerEl);
    this.onOpen();
  }
  close(): void {
    this.app.modals = this.app.modals.filter((m) => m !== this);
    this.containerEl.remove();
    this.onClose();
  }
  onOpen(): void {}
  onClose(): void {}
}

export abstract class SuggestModal<T> extends Modal {
  emptyStateText = "";
  inputEl = document.createElement("input");
  placeholder = "";
  setPlaceholder(text: string): void {
    this.placeholder = text;
  }
  abstract getSuggestions(query: string): T[] | Promise<T[]>;
  abstract renderSuggestion(value: T, el: HTMLElement): void;
  abstract onChooseSuggestion(item: T, evt: MouseEvent | KeyboardEvent): void;
}

export class PluginSettingTab {
  containerEl = document.createElement("div");
  constructor(
    public app: App,
    public plugin: Plugin,
  ) {}
  display(): void {}
}

class TextComponent {
  inputEl = document.createElement("input");
  private change: ((value: string) => unknown) | null = null;
  constructor() {
    this.inputEl.addEventListener("input", () => this.change?.(this.inputEl.value));
  }
  setValue(value: string): this {
    this.inputEl.value = value;
    return this;
  }
  getValue(): string {
    return this.inputEl.value;
  }
  onChange(callback: (value: string) => unknown): this {
    this.change = callback;
    return this;
  }
}

class ButtonComponent {
  buttonEl = document.createElement("button");
  setButtonText(text: string): this {
    this.buttonEl.textContent = text;
    return this;
  }
  setCta(): this {
    return this;
  }
  onClick(callback: () => unknown): this {
    this.buttonEl.addEventListener("click", () => void callback());
    return this;
  }
}

export class Setting {
  settingEl = document.createElement("div");
  nameEl = document.createElement("div");
  constructor(containerEl: HTMLElement) {
    this.settingEl.append(this.nameEl);
    containerEl.append(this.settingEl);
  }
  setName(name: string): this {
    this.nameEl.textContent = name;
    this.settingEl.dataset.name = name;
    return this;
  }
  setDesc(_desc: string): this {
    return this;
  }
  addText(build: (text: TextComponent) => void): this {
    const text = new TextComponent();
    this.settingEl.append(text.inputEl);
    build(text);
    return this;
  }
  addButton(build: (button: ButtonComponent) => void): this {
    const button = new ButtonComponent();
    this.settingEl.append(button.buttonEl);
    build(button);
    return this;
  }
}

export class Notice {
  static shown: string[] = [];
  constructor(message: string) {
    Notice.shown.push(message);
  }
}

// -- Markdown and requests -------------------------------------------------------------------
const md = new MarkdownIt({ html: false });

export const MarkdownRenderer = {
  /** Markdown as Obsidian renders it for the parts the plugin relies on: [[x]] -> a.internal-link. */
  async render(_app: App, markdown: string, el: HTMLElement, _sourcePath: string, _component: Component): Promise<void> {
    const marked = replaceWikiLinks(markdown, (link) => `\uE000${encodeURIComponent(link.target)}\uE001${encodeURIComponent(link.display)}\uE002`);
    const html = md
      .render(marked)
      .replace(/\uE000([^\uE001]*)\uE001([^\uE002]*)\uE002/g, (_m, target: string, display: string) => {
        const t = decodeURIComponent(target).replace(/"/g, "&quot;");
        return `<a data-href="${t}" href="${t}" class="internal-link">${escapeHtml(decodeURIComponent(display))}</a>`;
      });
    el.insertAdjacentHTML("beforeend", html);
  },
};

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

export interface RequestUrlParam {
  url: string;
  method?: string;
  contentType?: string;
  body?: string;
  headers?: Record<string, string>;
  throw?: boolean;
}

/** Every requestUrl call (method and path), for the tests that count requests. */
export const requests: { method: string; path: string }[] = [];

export function requestUrl(param: RequestUrlParam): Promise<{ status: number; text: string; json: unknown }> {
  const url = new URL(param.url);
  requests.push({ method: param.method ?? "GET", path: url.pathname });
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: param.method ?? "GET", headers: { ...param.headers, ...(param.contentType ? { "Content-Type": param.contentType } : {}) } },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => {
          const status = res.statusCode ?? 0;
          if (status >= 400 && param.throw !== false) reject(new Error(`Request failed, status ${status}`));
          let json: unknown = null;
          try {
            json = JSON.parse(text);
          } catch {
            json = null;
          }
          resolve({ status, text, json });
        });
      },
    );
    req.on("error", reject);
    if (param.body !== undefined) req.write(param.body);
    req.end();
  });
}

export const Platform = { isMobile: false, isDesktop: true, isDesktopApp: true };
