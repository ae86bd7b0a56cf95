// Shown when the server answers 401: asks for the token once and saves it in the settings.
import { type App, Modal, Setting } from "obsidian";
import { el } from "../../client";

export class TokenModal extends Modal {
  private token = "";

  constructor(
    app: App,
    private readonly onSave: (token: string) => Promise<void>,
  ) {
    super(app);
  }

  onOpen(): void {
    this.titleEl.textContent = "Vault GraphRAG: token needed";
    this.contentEl.append(
      el("p", {}, "The server refused the request (401). Enter the token it was started with (--token-file)."),
    );
    new Setting(this.contentEl).setName("Token").addText((text) => {
      text.inputEl.type = "password";
      text.onChange((value) => (this.token = value.trim()));
    });
    new Setting(this.contentEl).addButton((button) =>
      button
        .setButtonText("Save")
        .setCta()
        .onClick(async () => {
          await this.onSave(this.token);
          this.close();
        }),
    );
  }

  onClose(): void {
    this.contentEl.replaceChildren();
  }
}
