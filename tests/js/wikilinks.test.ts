// The text helpers both clients share (no server needed).
import { describe, expect, it } from "vitest";
import { citedFirst, obsidianUrl, parseWikiLinks, relationSentence, uriOfPath } from "../../client";

describe("wikilinks", () => {
  it("parses targets, headings, display text and embeds", () => {
    const links = parseWikiLinks("See [[Places/Huts/Spring Box#Water|the spring]], ![[Glossary#^hirt]] and [[Home]].");
    expect(links.map(({ target, subpath, display, embed }) => [target, subpath, display, embed])).toEqual([
      ["Places/Huts/Spring Box", "Water", "the spring", false],
      ["Glossary", "^hirt", "Glossary > ^hirt", true],
      ["Home", "", "Home", false],
    ]);
  });

  it("maps paths to uris and uris to obsidian:// URLs", () => {
    expect(uriOfPath("Places/Huts/Spring Box.md")).toBe("Places/Huts/Spring Box");
    expect(obsidianUrl("/home/me/My Notes/", "Places/Huts/Spring Box")).toBe(
      "obsidian://open?vault=My%20Notes&file=Places%2FHuts%2FSpring%20Box",
    );
  });

  it("uses the server's relation sentence, else a phrase from the relation", () => {
    const base = { uri: "a", title: "Ann", details: "" };
    expect(relationSentence({ ...base, relationToFocusNote: "Child", relationSentence: "from the server" }, "Hut")).toBe(
      "from the server",
    );
    expect(relationSentence({ ...base, relationToFocusNote: "InboundReference", predicate: "author" }, "Hut")).toBe(
      "Ann links to Hut through its `author` property",
    );
    expect(relationSentence({ ...base, relationToFocusNote: "ChildOfSiblingOfParent" }, "Hut")).toBe(
      "Ann is related to Hut (child of sibling of parent)",
    );
  });

  it("lists cited sources first, each group in the server's order", () => {
    const s = (uri: string) => ({ uri, title: uri, relation: "" });
    expect(citedFirst([s("a"), s("b"), s("c")], ["c", "a"]).map((x) => [x.uri, x.cited])).toEqual([
      ["a", true],
      ["c", true],
      ["b", false],
    ]);
  });
});
