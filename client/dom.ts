// The one DOM helper of the page and the plugin (plain DOM, so the plugin needs none of
// Obsidian's HTMLElement extensions and the page no framework).

export type Child = Node | string | null | undefined | false;

/** `el("a", {class: "x", href: "#"}, "text", otherNode)` */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  for (const child of children) if (child != null && child !== false) node.append(child);
  return node;
}
