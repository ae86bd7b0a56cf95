// Every failure of a call to the server is one of these, so a caller can tell "start the
// server" from "give me a token" from "that note does not exist" without reading status codes.
import type { ErrorBody } from "./types";

export class VaultRagError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Nothing answered at the URL (server not started, wrong port, no network). */
export class ServerUnreachableError extends VaultRagError {
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(`server not reachable at ${url}: ${reason}`);
  }
}

/** The server answered with an error body `{error, detail, ...}`. */
export class ApiError extends VaultRagError {
  readonly code: string;
  readonly detail: string;
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(`${status} ${body.error}: ${body.detail}`);
    this.code = body.error;
    this.detail = body.detail;
  }
}

/** 401: the token is missing or wrong. */
export class UnauthorizedError extends ApiError {}

/** 404 note_not_found; `suggestions` lists close uris. */
export class NoteNotFoundError extends ApiError {
  get suggestions(): string[] {
    const s = this.body.suggestions;
    return Array.isArray(s) ? (s as string[]) : [];
  }
}

/** 409 model_not_configured: /ask without a model given or configured. */
export class ModelNotConfiguredError extends ApiError {}

/** 409 index_busy: another update runs. */
export class IndexBusyError extends ApiError {}

/** The response was not what the contract says (not JSON, a stream that ended early...). */
export class ProtocolError extends VaultRagError {}

/** An `error` event arrived in the /ask stream after streaming began. */
export class AskStreamError extends VaultRagError {
  constructor(
    readonly code: string,
    readonly detail: string,
  ) {
    super(`${code}: ${detail}`);
  }
}

/** The caller aborted (AbortSignal). */
export class CancelledError extends VaultRagError {
  constructor() {
    super("cancelled");
  }
}

function isErrorBody(value: unknown): value is ErrorBody {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as ErrorBody).error === "string" &&
    typeof (value as ErrorBody).detail === "string"
  );
}

/** The typed error for an HTTP status >= 400 and its (parsed, if JSON) body. */
export function errorFor(status: number, body: unknown, text: string): ApiError {
  const parsed: ErrorBody = isErrorBody(body)
    ? body
    : { error: `http_${status}`, detail: text.slice(0, 300) || `HTTP ${status}` };
  if (status === 401) return new UnauthorizedError(status, parsed);
  if (status === 404 && parsed.error === "note_not_found") return new NoteNotFoundError(status, parsed);
  if (status === 409 && parsed.error === "model_not_configured") {
    return new ModelNotConfiguredError(status, parsed);
  }
  if (status === 409 && parsed.error === "index_busy") return new IndexBusyError(status, parsed);
  return new ApiError(status, parsed);
}
