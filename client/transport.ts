// How a request reaches the server. The client talks to a `Transport` for plain JSON calls
// and to a fetch-like function for the /ask stream, so the Obsidian plugin can send JSON
// through Obsidian's `requestUrl` (no CORS preflight in the desktop app) and still stream with
// `fetch`, and tests can count or fail requests.

export interface TransportRequest {
  url: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

export interface TransportResponse {
  status: number;
  /** The body as text ("" when empty). */
  text: string;
}

/**
 * Sends one request. Resolves with any HTTP status (errors are the client's job); rejects only
 * when no response came (connection refused, DNS, aborted).
 */
export type Transport = (request: TransportRequest) => Promise<TransportResponse>;

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** The default transport: the platform's `fetch`. */
export function fetchTransport(fetchFn: FetchLike = (input, init) => fetch(input, init)): Transport {
  return async (request) => {
    const response = await fetchFn(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: request.signal,
    });
    return { status: response.status, text: await response.text() };
  };
}
