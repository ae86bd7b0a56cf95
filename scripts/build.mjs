// Builds the web page and the Obsidian plugin into the Python package, so `pip install`
// ships them (the server serves the page; `vault-graphrag plugin install` copies the plugin).
//   node scripts/build.mjs [--out DIR]   (DIR gets static/ and plugin/; default graphrag/serve)
import { copyFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const outIndex = args.indexOf("--out");
const out = resolve(root, outIndex >= 0 ? args[outIndex + 1] : "graphrag/serve");
const webOut = join(out, "static");
const pluginOut = join(out, "plugin");

// Same bytes from the same sources on every machine: no sourcemaps or build paths inside.
const common = { bundle: true, minify: true, legalComments: "none", logLevel: "warning", absWorkingDir: root };

export async function build() {
  await mkdir(webOut, { recursive: true });
  await mkdir(pluginOut, { recursive: true });
  await esbuild.build({
    ...common,
    entryPoints: ["web/src/main.ts"],
    outfile: join(webOut, "app.js"),
    format: "esm",
    target: "es2021",
    platform: "browser",
  });
  await copyFile(join(root, "web/index.html"), join(webOut, "index.html"));
  await copyFile(join(root, "web/style.css"), join(webOut, "style.css"));

  const manifest = JSON.parse(await readFile(join(root, "obsidian-plugin/manifest.json"), "utf8"));
  await esbuild.build({
    ...common,
    entryPoints: ["obsidian-plugin/src/main.ts"],
    outfile: join(pluginOut, "main.js"),
    format: "cjs",
    target: "es2021",
    platform: "browser",
    // Provided by Obsidian at run time; nothing from Node, so the plugin loads on mobile too.
    external: ["obsidian", "electron", "@codemirror/*", "@lezer/*"],
    banner: { js: `/* vault-graphrag Obsidian plugin ${manifest.version}: built from obsidian-plugin/src */` },
  });
  await writeFile(join(pluginOut, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
  await copyFile(join(root, "obsidian-plugin/styles.css"), join(pluginOut, "styles.css"));
  console.log(`built ${webOut}/{index.html,app.js,style.css} and ${pluginOut}/{main.js,manifest.json,styles.css}`);
}

await build();
