// The TypeScript tests: the shared client, the Obsidian plugin (in happy-dom, with a fake
// `obsidian` module) and the web page (headless Chromium), all against the real server that
// tests/js/server.setup.ts starts on a loopback port.
import { resolve } from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: { obsidian: resolve(import.meta.dirname, "tests/js/fake-obsidian.ts") },
  },
  test: {
    include: ["tests/js/**/*.test.ts"],
    globalSetup: ["tests/js/server.setup.ts"],
    // happy-dom's fetch throws when a cancelled body's socket ends later: see the file.
    setupFiles: ["tests/js/stream-guard.ts"],
    environment: "happy-dom",
    // The page's origin as the server's CORS allows it (server.cors_origins has http://localhost).
    environmentOptions: { happyDOM: { url: "http://localhost/" } },
    // One server for all files: run them one at a time (2 cores shared with the Python server).
    fileParallelism: false,
    // happy-dom logs every HTTP error status its fetch sees; the tests provoke 401/404/422 on
    // purpose and assert on them, so those lines are noise.
    onConsoleLog: (log) => !/^(GET|POST) http:\/\/127\.0\.0\.1:\d+\/\S* \d{3} /.test(log),
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
