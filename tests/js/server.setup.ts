// vitest globalSetup: the REAL server (`vault-graphrag serve`) on a free loopback port, over a
// copy of sample_vault in a temp dir, with the hash embedder and the llm test models
// (tests/js/serve_for_js.py), a token, and the file watcher on. Tests read it with
// inject("server").
import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { TestProject } from "vitest/node";

export interface ServerInfo {
  url: string;
  token: string;
  vault: string;
  tmp: string;
  /** Written by the js-slow model when the server closed its stream early. */
  slowClosed: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    server: ServerInfo;
  }
}

export const ROOT = resolve(import.meta.dirname, "../..");
const PYTHON = join(ROOT, ".venv/bin/python");

export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once("error", fail);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => (typeof address === "object" && address ? done(address.port) : fail(new Error("no port"))));
    });
  });
}

/** Environment for a test server: fake embedder, private llm folder, no network. */
export function serverEnv(tmp: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith("VAULTRAG_")) delete env[key];
  return {
    ...env,
    PYTHONPATH: ROOT,
    VAULTRAG_EMBEDDING__BACKEND: "tests.support.fakes:hash_embedder",
    LLM_USER_PATH: join(tmp, "llm"),
    HF_HUB_OFFLINE: "1",
    TRANSFORMERS_OFFLINE: "1",
    ...extra,
  };
}

/** Wait until GET url/health answers (the index is built before the server listens). */
export async function waitForHealth(url: string, child: ChildProcess, log: () => string, seconds = 180): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}):\n${log()}`);
    try {
      const response = await fetch(`${url}/health`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`the server did not answer within ${seconds} s:\n${log()}`);
}

export interface StartedServer {
  url: string;
  child: ChildProcess;
  stop: () => Promise<void>;
}

/** `serve VAULT --index-dir INDEX --port P ...args` through the test-model launcher. */
export async function startServer(
  vault: string,
  indexDir: string,
  tmp: string,
  args: string[] = [],
  extraEnv: Record<string, string> = {},
): Promise<StartedServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    PYTHON,
    [join(ROOT, "tests/js/serve_for_js.py"), "serve", vault, "--index-dir", indexDir, "--port", String(port), ...args],
    { cwd: ROOT, env: serverEnv(tmp, extraEnv), stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout?.on("data", (d) => (output += d));
  child.stderr?.on("data", (d) => (output += d));
  await waitForHealth(url, child, () => output);
  const stop = (): Promise<void> =>
    new Promise((done) => {
      if (child.exitCode !== null) return done();
      child.once("exit", () => done());
      child.kill("SIGTERM");
      setTimeout(() => child.kill("SIGKILL"), 5000).unref();
    });
  return { url, child, stop };
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const tmp = mkdtempSync(join(tmpdir(), "vgr-js-"));
  const vault = join(tmp, "vault");
  cpSync(join(ROOT, "sample_vault"), vault, { recursive: true });
  const token = "js-test-token";
  writeFileSync(join(tmp, "token"), token);
  const slowClosed = join(tmp, "slow-closed");
  const server = await startServer(vault, join(tmp, "index"), tmp, ["--token-file", join(tmp, "token")], {
    VGR_SLOW_CLOSED: slowClosed,
  });
  project.provide("server", { url: server.url, token, vault, tmp, slowClosed });
  return async () => {
    await server.stop();
    rmSync(tmp, { recursive: true, force: true });
  };
}
