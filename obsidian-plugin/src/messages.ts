// What the user reads when a call fails: one sentence that says what to do.
import {
  ApiError,
  CancelledError,
  ModelNotConfiguredError,
  ServerUnreachableError,
  UnauthorizedError,
} from "../../client";

export function startMessage(vaultPath: string | null): string {
  return `server not reachable — start it with \`vault-graphrag serve ${vaultPath ?? "<this vault's path>"}\``;
}

export function describeError(error: unknown, vaultPath: string | null): string {
  if (error instanceof ServerUnreachableError) return startMessage(vaultPath);
  if (error instanceof UnauthorizedError) return "the server needs a token: set it in the plugin's settings";
  if (error instanceof ModelNotConfiguredError) return error.detail;
  if (error instanceof CancelledError) return "stopped";
  if (error instanceof ApiError) return error.detail;
  return error instanceof Error ? error.message : String(error);
}
