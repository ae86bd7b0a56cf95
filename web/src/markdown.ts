// Markdown for answers and notes. Raw HTML in a note is shown as text (html: false), so a note
// cannot run script in the page; [[wikilinks]] become links that open the note in the page.
import MarkdownIt from "markdown-it";
import { replaceWikiLinks } from "../../client";

const md = new MarkdownIt({ html: false, linkify: false, breaks: false });

// The page loads nothing from the network (its Content-Security-Policy: images from this server
// or data: only) and the server does not serve a vault's attachments, so a note's image other
// than data: would only be a broken icon and a console error: it is shown as its alt text, a
// link for a web address.
const renderImage = md.renderer.rules.image!;
md.renderer.rules.image = (tokens, idx, options, env, self) => {
  const token = tokens[idx];
  const src = token.attrGet("src") ?? "";
  if (src.startsWith("data:")) return renderImage(tokens, idx, options, env, self);
  const label = md.utils.escapeHtml(`image: ${self.renderInlineAsText(token.children ?? [], options, env) || src}`);
  return /^https?:\/\//i.test(src)
    ? `<a class="image" href="${md.utils.escapeHtml(src)}" rel="noreferrer noopener" target="_blank">${label}</a>`
    : `<span class="image">${label}</span>`;
};

export const NOTE_HREF = "#note=";

function escapeLinkText(text: string): string {
  return text.replace(/([\\[\]*_`])/g, "\\$1");
}

/** Markdown -> HTML, with each wikilink as `<a href="#note=TARGET">`. */
export function renderMarkdown(text: string): string {
  const linked = replaceWikiLinks(text, (link) =>
    link.target
      ? `[${escapeLinkText(link.display)}](${NOTE_HREF}${encodeURIComponent(link.target)})`
      : escapeLinkText(link.display),
  );
  return md.render(linked);
}

/** The note target of a link made by renderMarkdown, or null. */
export function noteOfHref(href: string | null): string | null {
  if (href === null || !href.startsWith(NOTE_HREF)) return null;
  return decodeURIComponent(href.slice(NOTE_HREF.length));
}
