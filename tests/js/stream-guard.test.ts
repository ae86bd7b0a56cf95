// The test-only wrapper of happy-dom's response bodies (tests/js/stream-guard.ts): a body the
// reader cancelled ignores the socket's late data and end instead of throwing, and lets go of it.
import { PassThrough } from "node:stream";
import FetchBodyUtility from "happy-dom/lib/fetch/utilities/FetchBodyUtility.js";
import { expect, it } from "vitest";

it("a cancelled body ignores late data and end, and destroys the socket's stream", async () => {
  const socket = new PassThrough();
  const body = FetchBodyUtility.nodeToWebStream(socket) as ReadableStream<Uint8Array>;
  const reader = body.getReader();
  socket.write("event: chunk\n\n");
  const first = await reader.read();
  expect(new TextDecoder().decode(first.value)).toBe("event: chunk\n\n");
  await reader.cancel();
  expect(socket.destroyed).toBe(true);
  // What the unguarded wrapper did next: enqueue/close on a closed controller, thrown from the
  // stream's event handlers.
  const thrown: unknown[] = [];
  for (const event of ["data", "end"] as const) {
    try {
      socket.emit(event, Buffer.from("late"));
    } catch (error) {
      thrown.push(error);
    }
  }
  expect(thrown).toEqual([]);
});

it("an uncancelled body still delivers every chunk and ends", async () => {
  const socket = new PassThrough();
  const body = FetchBodyUtility.nodeToWebStream(socket) as ReadableStream<Uint8Array>;
  socket.end("a\n\nb\n\n");
  const text = await new Response(body).text();
  expect(text).toBe("a\n\nb\n\n");
});
