// The one HTTP client of the web page and the Obsidian plugin: typed calls for each endpoint,
// errors as typed exceptions (client/errors.ts), and the /ask stream as typed events.
import {
  AskStreamError,
  CancelledError,
  ProtocolError,
  ServerUnreachableError,
  errorFor,
} from "./errors";
import { readSse } from "./sse";
import { type FetchLike, type Transport, type TransportRequest, fetchTransport } from "./transport";
import type {
  AskContext,
  AskDone,
  AskEvent,
  AskRequest,
  FocusOptions,
  FocusResult,
  Folders,
  Health,
  IndexStats,
  Models,
  Note,
  SearchOptions,
  SearchResult,
  Status,
  Tags,
} from "./types";

export interface ClientOptions {
  /** The server, e.g. "http://127.0.0.1:8765" ("" for the page's own origin). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer TOKEN` when set. */
  token?: string;
  /** For JSON calls (default: fetch). */
  transport?: Transport;
  /** For the /ask stream (default: the global fetch). */
  fetch?: FetchLike;
}

export interface AskHandlers {
  onContext?: (context: AskContext) => void;
  onDelta?: (text: string) => void;
}

function isAbort(error: unknown): boolean {
  return (
    typeof error === "object" &&
    error !== null &&
    ((error as Error).name === "AbortError" || error instanceof CancelledError)
  );
}

export class VaultRagClient {
  baseUrl: string;
  token: string | undefined;
  private readonly transport: Transport;
  private readonly fetchFn: FetchLike;

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.token = options.token || undefined;
    this.fetchFn = options.fetch ?? ((input, init) => fetch(input, init));
    this.transport = options.transport ?? fetchTransport(this.fetchFn);
  }

  private headers(json: boolean): Record<string, string> {
    const headers: Record<string, string> = { Accept: json ? "application/json" : "text/event-stream" };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    return headers;
  }

  /** One JSON call: the parsed body, or a typed error. */
  async request<T>(method: "GET" | "POST", path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const request: TransportRequest = { url: this.baseUrl + path, method, headers: this.headers(true), signal };
    if (body !== undefined) {
      request.headers["Content-Type"] = "application/json";
      request.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await this.transport(request);
    } catch (error) {
      if (isAbort(error) || signal?.aborted) throw new CancelledError();
      throw new ServerUnreachableError(this.baseUrl || "this page's server", String((error as Error)?.message ?? error));
    }
    let parsed: unknown = undefined;
    try {
      parsed = response.text ? JSON.parse(response.text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (response.status >= 400) throw errorFor(response.status, parsed, response.text);
    if (parsed === undefined) throw new ProtocolError(`${method} ${path}: the answer is not JSON`);
    return parsed as T;
  }

  health(): Promise<Health> {
    return this.request("GET", "/health");
  }

  status(signal?: AbortSignal): Promise<Status> {
    return this.request("GET", "/status", undefined, signal);
  }

  /**
   * Focus mode around a note (uri, title or alias); `exclude` pages. Related notes carry the
   * server's `relationSentence` (asked for with `sentences`, on unless turned off).
   */
  focus(note: string, options: FocusOptions = {}, signal?: AbortSignal): Promise<FocusResult> {
    return this.request("POST", "/focus", { note, sentences: true, ...options }, signal);
  }

  note(uri: string, signal?: AbortSignal): Promise<Note> {
    return this.request("GET", `/notes/${encodeURIComponent(uri)}`, undefined, signal);
  }

  search(query: string, options: SearchOptions = {}, signal?: AbortSignal): Promise<SearchResult> {
    return this.request("POST", "/search", { query, ...options }, signal);
  }

  models(): Promise<Models> {
    return this.request("GET", "/models");
  }

  tags(): Promise<Tags> {
    return this.request("GET", "/tags");
  }

  folders(): Promise<Folders> {
    return this.request("GET", "/folders");
  }

  /** Bring the index up to date now. */
  reindex(options: { full?: boolean; wait?: boolean } = {}): Promise<IndexStats> {
    return this.request("POST", "/index", options);
  }

  /**
   * The streamed answer as typed events: one `context`, `delta`s, one `done`. An `error` event
   * is thrown as AskStreamError; aborting `signal` closes the connection (the server then stops
   * the model) and throws CancelledError.
   */
  async *askEvents(request: AskRequest, signal?: AbortSignal): AsyncGenerator<AskEvent> {
    const url = `${this.baseUrl}/ask`;
    const headers = this.headers(false);
    headers["Content-Type"] = "application/json";
    let response: Response;
    try {
      response = await this.fetchFn(url, {
        method: "POST",
        headers,
        body: JSON.stringify({ ...request, stream: true }),
        signal,
      });
    } catch (error) {
      if (isAbort(error) || signal?.aborted) throw new CancelledError();
      throw new ServerUnreachableError(this.baseUrl || "this page's server", String((error as Error)?.message ?? error));
    }
    if (response.status >= 400) {
      const text = await response.text();
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      throw errorFor(response.status, parsed, text);
    }
    if (response.body === null) throw new ProtocolError("/ask: the answer has no body");
    let finished = false;
    try {
      for await (const event of readSse(response.body, signal)) {
        const data = parseData(event.data);
        if (event.event === "error") {
          const body = data as { error?: string; detail?: string };
          throw new AskStreamError(body.error ?? "error", body.detail ?? event.data);
        }
        if (event.event === "context" || event.event === "delta" || event.event === "done") {
          yield { type: event.event, data } as AskEvent;
          if (event.event === "done") {
            finished = true;
            return;
          }
        }
      }
    } catch (error) {
      if (isAbort(error) || signal?.aborted) throw new CancelledError();
      throw error;
    }
    if (!finished) throw new ProtocolError("/ask: the stream ended before its done event");
  }

  /** `askEvents` with callbacks: resolves with the done event's data. */
  async ask(request: AskRequest, handlers: AskHandlers = {}, signal?: AbortSignal): Promise<AskDone> {
    for await (const event of this.askEvents(request, signal)) {
      if (event.type === "context") handlers.onContext?.(event.data);
      else if (event.type === "delta") handlers.onDelta?.(event.data.text);
      else return event.data;
    }
    throw new ProtocolError("/ask: the stream ended before its done event");
  }
}

function parseData(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    throw new ProtocolError(`/ask: an event's data is not JSON: ${data.slice(0, 100)}`);
  }
}
