// happy-dom's fetch wraps the socket's Node stream in a web ReadableStream whose 'end' and
// 'data' handlers call controller.close()/enqueue() unconditionally. When the consumer cancels
// the body first (client/sse.ts cancels in its `finally`, as a browser allows), a late 'end'
// throws "Controller is already closed" as an uncaught exception, which fails the run although
// every test passed (happy-dom 20.14 and 21.0 alike). A browser's body ignores the stream once
// it is cancelled and closes the connection; this wrapper does the same.
import type { Readable } from "node:stream";
import FetchBodyUtility from "happy-dom/lib/fetch/utilities/FetchBodyUtility.js";
import * as PropertySymbol from "happy-dom/lib/PropertySymbol.js";

function nodeToWebStream(nodeStream: Readable): ReadableStream {
  let open = true;
  const stream = new ReadableStream({
    start(controller) {
      nodeStream.on("data", (chunk) => {
        if (open) controller.enqueue(chunk);
      });
      nodeStream.on("end", () => {
        if (!open) return;
        open = false;
        controller.close();
      });
      nodeStream.on("error", (err) => {
        if (!open) return;
        open = false;
        controller.error(err);
      });
    },
    cancel() {
      open = false;
      nodeStream.destroy();
    },
  });
  (stream as unknown as Record<symbol, unknown>)[PropertySymbol.nodeStream] = nodeStream;
  return stream;
}

(FetchBodyUtility as unknown as { nodeToWebStream: typeof nodeToWebStream }).nodeToWebStream = nodeToWebStream;
