// The TypeScript benchmarks (not tests: no assertion on time). Run with
//   npx vitest run --config benchmarks/js/vitest.config.ts
import { resolve } from "node:path";
import { defineConfig } from "vitest/config";

const root = resolve(import.meta.dirname, "../..");

export default defineConfig({
  root,
  resolve: { alias: { obsidian: resolve(root, "tests/js/fake-obsidian.ts") } },
  test: {
    include: ["benchmarks/js/*.run.ts"],
    globalSetup: ["benchmarks/js/hub.setup.ts"],
    environment: "happy-dom",
    environmentOptions: { happyDOM: { url: "http://localhost/" } },
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 600_000,
  },
});
