// A Server-Sent Events reader for a fetch() body. EventSource cannot POST a JSON body nor send
// an Authorization header, so /ask is read with fetch and parsed here (the WHATWG
// "event stream interpretation": fields per line, an empty line dispatches, ":" is a comment).

export interface SseEvent {
  event: string;
  data: string;
  id?: string;
}

/** Incremental parser: feed it text as it arrives, take the complete events. */
export class SseParser {
  private buffer = "";
  private event = "";
  private data: string[] = [];
  private id: string | undefined;

  /** Parse a chunk; returns the events it completed. */
  feed(chunk: string): SseEvent[] {
    this.buffer += chunk;
    const out: SseEvent[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      if (match === null) break;
      // A lone "\r" at the end may be the first half of "\r\n": wait for the next chunk.
      if (match[0] === "\r" && match.index === this.buffer.length - 1) break;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      const event = this.line(line);
      if (event !== null) out.push(event);
    }
    return out;
  }

  /**
   * The end of the stream: a trailing "\r" ends its line; then an event without its closing
   * blank line is dropped (per spec).
   */
  end(): SseEvent[] {
    const out: SseEvent[] = [];
    if (this.buffer.endsWith("\r")) {
      const event = this.line(this.buffer.slice(0, -1));
      if (event !== null) out.push(event);
    }
    this.buffer = "";
    this.data = [];
    this.event = "";
    return out;
  }

  private line(line: string): SseEvent | null {
    if (line === "") {
      if (this.data.length === 0) {
        this.event = "";
        return null;
      }
      const event: SseEvent = { event: this.event || "message", data: this.data.join("\n") };
      if (this.id !== undefined) event.id = this.id;
      this.event = "";
      this.data = [];
      return event;
    }
    if (line.startsWith(":")) return null;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") this.event = value;
    else if (field === "data") this.data.push(value);
    else if (field === "id") this.id = value;
    return null;
  }
}

/**
 * The events of a response body, as they arrive. Aborting `signal` cancels the body (which
 * closes the connection, so the server stops the model) and ends the iteration with the
 * signal's reason.
 */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  signal?: AbortSignal,
): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  const onAbort = (): void => {
    reader.cancel().catch(() => undefined);
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    for (;;) {
      if (signal?.aborted) throw signal.reason ?? new DOMException("Aborted", "AbortError");
      const { value, done } = await reader.read();
      if (signal?.aborted) throw signal.reason ?? new DOMException("Aborted", "AbortError");
      if (done) break;
      yield* parser.feed(decoder.decode(value, { stream: true }));
    }
    yield* parser.feed(decoder.decode());
    yield* parser.end();
  } finally {
    signal?.removeEventListener("abort", onAbort);
    reader.cancel().catch(() => undefined);
    try {
      reader.releaseLock();
    } catch {
      // a read still pending (some engines): the cancel above ends it
    }
  }
}
