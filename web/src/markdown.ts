// Markdown for answers and notes. Raw HTML in a note is shown as text (html: false), so a note
// cannot run script in the page; [[wikilinks]] become links that open the note in the page.
import MarkdownIt from "markdown-it";
import { replaceWikiLinks } from "../../client";

const md = new MarkdownIt({ html: false, linkify: false, breaks: false });

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
