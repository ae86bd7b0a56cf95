// The page's Markdown (web/src/markdown.ts): what a note's text becomes in the page.
import { describe, expect, it } from "vitest";
import { renderMarkdown } from "../../web/src/markdown";

describe("renderMarkdown", () => {
  it("shows a note's images as text or a link: the page's CSP would block them", () => {
    const html = renderMarkdown("![250](https://example.com/Engelbart.jpg) and ![](Attachments/pic.png)");
    expect(html).not.toContain("<img");
    expect(html).toContain('<a class="image" href="https://example.com/Engelbart.jpg" rel="noreferrer noopener" target="_blank">image: 250</a>');
    expect(html).toContain('<span class="image">image: Attachments/pic.png</span>');
  });

  it("keeps a data: image, which the CSP allows", () => {
    expect(renderMarkdown("![dot](data:image/png;base64,iVBORw0KGgo=)")).toContain('<img src="data:image/png;base64,iVBORw0KGgo=" alt="dot">');
  });

  it("escapes an image's text", () => {
    expect(renderMarkdown('![<b>x</b>](https://e.com/"q".png)')).not.toMatch(/<b>|"q"/);
  });
});
