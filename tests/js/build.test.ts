// @vitest-environment node
// The bundles in the Python package (what pip users get) are a fresh build of the sources.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./server.setup";

const FILES = ["static/index.html", "static/app.js", "static/style.css", "plugin/main.js", "plugin/manifest.json", "plugin/styles.css"];

describe("the built page and plugin in graphrag/serve", () => {
  it("match a fresh build of client/, web/ and obsidian-plugin/ (run `make js` and commit them)", () => {
    const out = mkdtempSync(join(tmpdir(), "vgr-build-"));
    try {
      execFileSync(process.execPath, [join(ROOT, "scripts/build.mjs"), "--out", out], { cwd: ROOT, stdio: "pipe" });
      for (const file of FILES) {
        const fresh = readFileSync(join(out, file), "utf8");
        const shipped = readFileSync(join(ROOT, "graphrag/serve", file), "utf8");
        expect(shipped === fresh, `graphrag/serve/${file} is stale: run \`make js\``).toBe(true);
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it("the plugin needs nothing but Obsidian at run time (it loads on mobile)", () => {
    const main = readFileSync(join(ROOT, "graphrag/serve/plugin/main.js"), "utf8");
    const required = new Set([...main.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]));
    expect([...required]).toEqual(["obsidian"]);
    const manifest = JSON.parse(readFileSync(join(ROOT, "graphrag/serve/plugin/manifest.json"), "utf8"));
    expect(manifest).toMatchObject({ id: "vault-graphrag", isDesktopOnly: false });
  });
});
