// The plugin's settings and their tab (server, token, budgets, default model, test connection).
import { type App, PluginSettingTab, Setting } from "obsidian";
import { el } from "../../client";
import type VaultGraphRagPlugin from "./main";

export interface Settings {
  serverUrl: string;
  token: string;
  /** Tokens of related notes in the related pane (one page; "more" fetches the next). */
  relatedBudget: number;
  /** Tokens of context sent to the model with a question. */
  askBudget: number;
  /** An llm model id; "" uses the server's configured model. */
  defaultModel: string;
  /** After an edit, wait this long for typing to pause before looking for the re-indexed note. */
  refreshDebounceMs: number;
}

export const DEFAULT_SETTINGS: Settings = {
  serverUrl: "http://127.0.0.1:8765",
  token: "",
  relatedBudget: 1500,
  askBudget: 3000,
  defaultModel: "",
  refreshDebounceMs: 1500,
};

function positiveInt(value: string, fallback: number): number {
  const n = Number.parseInt(value, 10);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

export class SettingsTab extends PluginSettingTab {
  constructor(
    app: App,
    private readonly plugin: VaultGraphRagPlugin,
  ) {
    super(app, plugin);
  }

  display(): void {
    const { containerEl } = this;
    containerEl.replaceChildren();
    const s = this.plugin.settings;
    const save = async (change: Partial<Settings>): Promise<void> => {
      Object.assign(s, change);
      await this.plugin.saveSettings();
    };
    new Setting(containerEl)
      .setName("Server URL")
      .setDesc("Where `vault-graphrag serve` listens (on a phone: the computer's address, with a token).")
      .addText((text) => text.setValue(s.serverUrl).onChange((v) => save({ serverUrl: v.trim() })));
    new Setting(containerEl)
      .setName("Token")
      .setDesc("The server's token, if it has one (--token-file).")
      .addText((text) => {
        text.inputEl.type = "password";
        text.setValue(s.token).onChange((v) => save({ token: v.trim() }));
      });
    new Setting(containerEl)
      .setName("Related notes budget")
      .setDesc("Tokens of related notes per page in the related pane.")
      .addText((text) =>
        text.setValue(String(s.relatedBudget)).onChange((v) => save({ relatedBudget: positiveInt(v, s.relatedBudget) })),
      );
    new Setting(containerEl)
      .setName("Answer context budget")
      .setDesc("Tokens of notes sent to the model with each question.")
      .addText((text) =>
        text.setValue(String(s.askBudget)).onChange((v) => save({ askBudget: positiveInt(v, s.askBudget) })),
      );
    new Setting(containerEl)
      .setName("Default model")
      .setDesc("An llm model id or alias; empty uses the server's [llm] model.")
      .addText((text) => text.setValue(s.defaultModel).onChange((v) => save({ defaultModel: v.trim() })));
    const result = el("div", { class: "vgr-test-result" });
    new Setting(containerEl).setName("Test connection").addButton((button) =>
      button.setButtonText("Test connection").onClick(async () => {
        result.textContent = "…";
        result.textContent = await this.plugin.testConnection();
      }),
    );
    containerEl.append(result);
  }
}
