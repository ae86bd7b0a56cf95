// The status bar item: notes indexed, an update's progress, or how to start the server.
import type { Status } from "../../client";

export function statusText(status: Status): string {
  const p = status.progress;
  if (p) return `vault-graphrag: indexing ${p.done.toLocaleString("en")} / ${p.total.toLocaleString("en")}`;
  const notes = (status.counts.notes ?? 0).toLocaleString("en");
  return `vault-graphrag: ${notes} notes${status.updating ? " (updating)" : ""}`;
}
