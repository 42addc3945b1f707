/**
 * The credentials a call to a company server carries: its header files' values, read now, and
 * for a server registered as `oauth` the calling person's own token instead of a shared one.
 */
import type { McpCaller } from "./caller.ts";
import type { PersonAuth } from "./person_auth.ts";
import type { McpServerEntry } from "./server_book.ts";
import { readCredentials } from "./upstream.ts";

export type Credentials = (
  entry: McpServerEntry,
  caller: McpCaller,
) => Promise<Record<string, string>>;

export function credentialsOf(people: Pick<PersonAuth, "bearer">): Credentials {
  return async (entry, caller) => {
    const files = await readCredentials(entry);
    if (entry.auth !== "oauth") return files;
    const token = await people.bearer(entry, caller.key.userId, caller.portal);
    return { ...files, Authorization: `Bearer ${token}` };
  };
}
