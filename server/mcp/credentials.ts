/**
 * The credentials a call to a company server carries: its header files' values, read now, and
 * for a server registered as `oauth` the calling person's own token instead of a shared one.
 */
import type { AppError } from "../../core/errors.ts";
import type { McpCaller } from "./caller.ts";
import type { PersonAuth } from "./person_auth.ts";
import type { McpServerEntry } from "./server_book.ts";
import { readCredentials, UpstreamError } from "./upstream.ts";

export interface Credentials {
  of(entry: McpServerEntry, caller: McpCaller): Promise<Record<string, string>>;
  /**
   * A failure that is the caller's credential refused (a person's token revoked at the server),
   * as the error to answer instead; null when it is the server's own failure.
   */
  refused(entry: McpServerEntry, caller: McpCaller, e: unknown): Promise<AppError | null>;
}

export function credentialsOf(
  people: Pick<PersonAuth, "bearer" | "forget" | "needed">,
): Credentials {
  return {
    async of(entry, caller) {
      const files = await readCredentials(entry);
      if (entry.auth !== "oauth") return files;
      const token = await people.bearer(entry, caller.key.userId, caller.portal);
      return { ...files, Authorization: `Bearer ${token}` };
    },
    async refused(entry, caller, e) {
      if (entry.auth !== "oauth" || !(e instanceof UpstreamError) || e.status !== 401) return null;
      // Revoked or expired early at the server: this person authorises again; the server is fine.
      if (caller.key.userId) await people.forget(entry.name, caller.key.userId);
      return people.needed(entry, caller.portal);
    },
  };
}
