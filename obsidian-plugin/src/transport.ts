// JSON calls through Obsidian's requestUrl: it is not subject to CORS (Obsidian mobile talks to
// a server on the LAN) and it works the same on desktop and mobile. The /ask stream needs a
// readable body, which only fetch gives; the server's CORS allows app://obsidian.md for it.
import { requestUrl } from "obsidian";
import type { Transport } from "../../client";

export const requestUrlTransport: Transport = async (request) => {
  if (request.signal?.aborted) throw new DOMException("Aborted", "AbortError");
  const response = await requestUrl({
    url: request.url,
    method: request.method,
    headers: request.headers,
    contentType: request.headers["Content-Type"],
    body: request.body,
    throw: false,
  });
  if (request.signal?.aborted) throw new DOMException("Aborted", "AbortError");
  return { status: response.status, text: response.text };
};
