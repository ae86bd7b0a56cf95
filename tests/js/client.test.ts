// The shared client against the real server: typed results and typed errors.
import { describe, expect, inject, it } from "vitest";
import {
  ApiError,
  CancelledError,
  NoteNotFoundError,
  ServerUnreachableError,
  UnauthorizedError,
  VaultRagClient,
  fetchTransport,
} from "../../client";
import { freePort } from "./server.setup";

const server = inject("server");
const client = new VaultRagClient({ baseUrl: server.url, token: server.token });

describe("client", () => {
  it("reads /status and the focus context of a sample_vault note", async () => {
    const status = await client.status();
    expect(status.counts.notes).toBeGreaterThan(30);
    expect(status.vault).toBe(server.vault);
    const focus = await client.focus("Places/Huts/Shepherd's Hut", { budget: 800, seed: 1 });
    expect(focus.focusNote.title).toBe("Shepherd's Hut");
    expect(focus.relatedNotes.map((n) => n.relationToFocusNote)).toContain("Child");
    expect(focus.relatedNotes.map((n) => n.relationSentence)).toContain("Spring Box is a child of Shepherd's Hut");
    const bare = await client.focus("Places/Huts/Shepherd's Hut", { budget: 800, seed: 1, sentences: false });
    expect(bare.relatedNotes.every((n) => n.relationSentence === undefined)).toBe(true);
  });

  it("pages focus mode with exclude", async () => {
    const first = await client.focus("Shepherd's Hut", { budget: 300, seed: 1 });
    const shown = first.relatedNotes.map((n) => n.uri);
    const next = await client.focus("Shepherd's Hut", { budget: 300, seed: 1, exclude: shown });
    expect(next.relatedNotes.length).toBeGreaterThan(0);
    expect(next.relatedNotes.filter((n) => shown.includes(n.uri))).toEqual([]);
  });

  it("encodes uris with spaces, apostrophes and slashes", async () => {
    const note = await client.note("Places/Huts/Shepherd's Hut");
    expect(note.path).toBe("Places/Huts/Shepherd's Hut.md");
  });

  it("searches", async () => {
    const result = await client.search("spring water trough", { top_k: 5 });
    expect(result.mode).toBe("hybrid");
    expect(result.results.map((r) => r.uri)).toContain("Places/Huts/Spring Box");
  });

  it("maps 404 note_not_found to NoteNotFoundError with suggestions", async () => {
    const error = await client.note("Shepherds Hutt").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoteNotFoundError);
    expect((error as NoteNotFoundError).status).toBe(404);
    expect((error as NoteNotFoundError).suggestions.length).toBeGreaterThan(0);
  });

  it("maps 422 to ApiError naming the field", async () => {
    const error = await client.focus("Shepherd's Hut", { budget: -5 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe("invalid_request");
    expect((error as ApiError).body.field).toBe("budget");
  });

  it("maps 401 to UnauthorizedError, without and with a wrong token", async () => {
    for (const token of [undefined, "wrong"]) {
      const error = await new VaultRagClient({ baseUrl: server.url, token }).status().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnauthorizedError);
    }
  });

  it("maps a closed port to ServerUnreachableError", async () => {
    const port = await freePort();
    const error = await new VaultRagClient({ baseUrl: `http://127.0.0.1:${port}` }).status().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerUnreachableError);
    expect((error as Error).message).toContain(`127.0.0.1:${port}`);
  });

  it("sends JSON through an injected transport", async () => {
    const seen: string[] = [];
    const transport = fetchTransport();
    const spying = new VaultRagClient({
      baseUrl: server.url,
      token: server.token,
      transport: (request) => {
        seen.push(`${request.method} ${new URL(request.url).pathname} ${request.headers.Authorization}`);
        return transport(request);
      },
    });
    await spying.focus("Spring Box");
    expect(seen).toEqual([`POST /focus Bearer ${server.token}`]);
  });

  it("turns an aborted call into CancelledError", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(client.status(controller.signal)).rejects.toBeInstanceOf(CancelledError);
  });
});
