// globalSetup of the TypeScript benchmarks: the real server over obsidian-hub (read-only in
// ../shared; the index goes to a temp dir), hash embedder, no watcher, no token. Warm: the
// index is built and loaded before the benchmarks start.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { TestProject } from "vitest/node";
import { ROOT, startServer } from "../../tests/js/server.setup";

declare module "vitest" {
  export interface ProvidedContext {
    bench: { url: string; vault: string; out: string };
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const vault = resolve(process.env.BENCH_VAULT ?? join(ROOT, "../shared/vaults/obsidian-hub"));
  const tmp = mkdtempSync(join(tmpdir(), "vgr-bench-js-"));
  const started = Date.now();
  const server = await startServer(vault, join(tmp, "index"), tmp, ["--no-watch"]);
  // Warm: the server's background preload (vectors, model, token counts) has finished.
  for (let i = 0; i < 1200; i++) {
    const status = (await (await fetch(`${server.url}/status`)).json()) as { preloaded?: boolean };
    if (status.preloaded !== false) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  console.log(`server on ${vault} ready in ${((Date.now() - started) / 1000).toFixed(1)} s (index built)`);
  project.provide("bench", { url: server.url, vault, out: process.env.BENCH_OUT ?? tmp });
  return async () => {
    await server.stop();
    rmSync(tmp, { recursive: true, force: true });
  };
}
