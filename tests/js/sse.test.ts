import { describe, expect, it } from "vitest";
import { SseParser, readSse } from "../../client/sse";

function parseAll(chunks: string[]): { event: string; data: string }[] {
  const parser = new SseParser();
  return [...chunks.flatMap((c) => parser.feed(c)), ...parser.end()].map(({ event, data }) => ({ event, data }));
}

describe("SseParser", () => {
  const stream = 'event: context\ndata: {"a":1}\n\n: a comment\nevent: delta\ndata: {"text":"x"}\n\nevent: done\ndata: {}\n\n';

  it("reads events whole or split at any byte", () => {
    const whole = parseAll([stream]);
    expect(whole).toEqual([
      { event: "context", data: '{"a":1}' },
      { event: "delta", data: '{"text":"x"}' },
      { event: "done", data: "{}" },
    ]);
    for (let cut = 1; cut < stream.length; cut++) {
      expect(parseAll([stream.slice(0, cut), stream.slice(cut)])).toEqual(whole);
    }
  });

  it("handles CRLF and CR line ends, split between \\r and \\n", () => {
    const crlf = stream.replace(/\n/g, "\r\n");
    expect(parseAll([crlf])).toEqual(parseAll([stream]));
    const at = crlf.indexOf("\r\n") + 1;
    expect(parseAll([crlf.slice(0, at), crlf.slice(at)])).toEqual(parseAll([stream]));
    expect(parseAll([stream.replace(/\n/g, "\r")])).toEqual(parseAll([stream]));
  });

  it("joins multi-line data, strips one leading space, defaults the event name", () => {
    expect(parseAll(["data:  two spaces\ndata:line2\n\n"])).toEqual([{ event: "message", data: " two spaces\nline2" }]);
  });

  it("drops an event without its closing blank line", () => {
    const parser = new SseParser();
    expect(parser.feed("event: delta\ndata: {}\n")).toEqual([]);
    expect(parser.end()).toEqual([]);
    expect(parser.feed("\n")).toEqual([]);
  });
});

describe("readSse", () => {
  function body(chunks: string[], onCancel: () => void): ReadableStream<Uint8Array> {
    const encoder = new TextEncoder();
    let i = 0;
    return new ReadableStream({
      pull(controller) {
        if (i < chunks.length) controller.enqueue(encoder.encode(chunks[i++]));
        // else: stays open, like a model still thinking
      },
      cancel: onCancel,
    });
  }

  it("decodes UTF-8 split inside a character", async () => {
    const bytes = new TextEncoder().encode('data: {"text":"Käse"}\n\n');
    const split = bytes.indexOf(0xc3) + 1;
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes.slice(0, split));
        c.enqueue(bytes.slice(split));
        c.close();
      },
    });
    const events = [];
    for await (const e of readSse(stream)) events.push(e.data);
    expect(events).toEqual(['{"text":"Käse"}']);
  });

  it("aborting cancels the body and ends the iteration", async () => {
    let cancelled = false;
    const controller = new AbortController();
    const seen: string[] = [];
    const run = (async () => {
      for await (const e of readSse(body(["data: 1\n\n", "data: 2\n\n"], () => (cancelled = true)), controller.signal)) {
        seen.push(e.data);
        if (seen.length === 2) controller.abort();
      }
    })();
    await expect(run).rejects.toThrow();
    expect(seen).toEqual(["1", "2"]);
    expect(cancelled).toBe(true);
  });
});
