// Internal links in the plugin's views (related notes, cited notes in answers, sources): a click
// opens the note (Ctrl/Cmd-click in a new tab), hovering shows Obsidian's page preview.
import type { ItemView } from "obsidian";

export function handleLinks(view: ItemView, source: string): void {
  const linkOf = (event: Event): [HTMLElement, string] | null => {
    const link = (event.target as HTMLElement | null)?.closest?.<HTMLElement>("a.internal-link");
    const href = link?.getAttribute("data-href");
    return link && href ? [link, href] : null;
  };
  view.contentEl.addEventListener("click", (event) => {
    const hit = linkOf(event);
    if (hit === null) return;
    event.preventDefault();
    void view.app.workspace.openLinkText(hit[1], "", event.ctrlKey || event.metaKey);
  });
  view.contentEl.addEventListener("mouseover", (event) => {
    const hit = linkOf(event);
    if (hit === null) return;
    view.app.workspace.trigger("hover-link", {
      event,
      source,
      hoverParent: view,
      targetEl: hit[0],
      linktext: hit[1],
      sourcePath: "",
    });
  });
}
