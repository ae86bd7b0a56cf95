// Text helpers both clients need: wikilinks in answers and notes, the sentence for a relation,
// note uris from vault paths, and the obsidian:// URL that opens a note.
import type { RelatedNote, Source } from "./types";

export interface WikiLink {
  /** The link as written, "[[Places/Huts/Spring Box#Water|the spring]]". */
  raw: string;
  /** "Places/Huts/Spring Box" */
  target: string;
  /** "Water" (after #), or "" */
  subpath: string;
  /** What to show: the |display text, else the target's last path part. */
  display: string;
  /** Whether it was an embed (![[...]]). */
  embed: boolean;
}

const WIKILINK = /(!?)\[\[([^[\]|#\n]*)(#[^[\]|\n]*)?(?:\|([^[\]\n]*))?\]\]/g;

export function parseWikiLinks(text: string): WikiLink[] {
  return [...text.matchAll(WIKILINK)].map((m) => toLink(m));
}

function toLink(m: RegExpMatchArray): WikiLink {
  const target = m[2].trim();
  const subpath = (m[3] ?? "").slice(1).trim();
  const base = target.split("/").pop() || subpath;
  return {
    raw: m[0],
    target,
    subpath,
    display: (m[4] ?? "").trim() || (subpath && target ? `${base} > ${subpath}` : base),
    embed: m[1] === "!",
  };
}

/** Replace every wikilink in `text` by `render(link)`. */
export function replaceWikiLinks(text: string, render: (link: WikiLink) => string): string {
  return text.replace(WIKILINK, (...args) => render(toLink(args as unknown as RegExpMatchArray)));
}

/** "Places/Huts/Spring Box.md" -> "Places/Huts/Spring Box" (the server's note uri). */
export function uriOfPath(path: string): string {
  return path.replace(/\.md$/i, "");
}

/** "obsidian://open?vault=Notes&file=Places%2FHuts%2FSpring%20Box" */
export function obsidianUrl(vaultPath: string, uri: string): string {
  const vault = vaultPath.replace(/[\\/]+$/, "").split(/[\\/]/).pop() ?? vaultPath;
  return `obsidian://open?vault=${encodeURIComponent(vault)}&file=${encodeURIComponent(uri)}`;
}

// Mirrors the server's relation phrases (graphrag render.PHRASES) for the relations that need
// no discovery path; the others read "related to". Used only when the server sends no
// `relationSentence`.
const PHRASES: Record<string, string> = {
  Parent: "{note} is the parent of {focus}",
  Child: "{note} is a child of {focus}",
  Object: "{focus} links to {note}{as}",
  InboundReference: "{note} links to {focus}{as}",
  PriorSibling: "{note} is a prior sibling of {focus}",
  YoungerSibling: "{note} is a younger sibling of {focus}",
  AncestorInContextualPath: "{note} is an ancestor of {focus}",
  SiblingOfParent: "{note} is a sibling of the parent of {focus}",
  GrandChild: "{note} is a descendant of {focus}",
  SharesTag: "{note} shares a tag with {focus}",
};

/** The sentence saying how a related note relates to the focus note. */
export function relationSentence(note: RelatedNote, focusTitle: string): string {
  if (note.relationSentence) return note.relationSentence;
  const phrase = PHRASES[note.relationToFocusNote];
  if (phrase === undefined) return `${note.title} is related to ${focusTitle} (${splitCamel(note.relationToFocusNote)})`;
  return phrase
    .replace("{note}", note.title)
    .replace("{focus}", focusTitle)
    .replace("{as}", note.predicate ? ` through its \`${note.predicate}\` property` : "");
}

function splitCamel(name: string): string {
  return name.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
}

/** Cited sources first (as the server orders them in `done`), each group in its order. */
export function citedFirst(sources: Source[], cited: string[]): Source[] {
  const set = new Set(cited);
  const mark = sources.map((s) => ({ ...s, cited: s.cited ?? set.has(s.uri) }));
  return [...mark.filter((s) => s.cited), ...mark.filter((s) => !s.cited)];
}
