/** Who calls /mcp: the key, where it sits in the tree, and the actor its audit rows name. */
import type { ApiKeyInfo } from "../keys/keys.ts";
import type { Actor } from "../tenancy/access.ts";
import { placeOfKey } from "../tenancy/place_of_key.ts";
import type { Place, Scope, Tenancy } from "../tenancy/tenancy.ts";

export interface McpCaller {
  key: ApiKeyInfo;
  /** The key's levels, widest first: where its tool grants are looked up. */
  chain: Scope[];
  place: Place;
  actor: Actor;
  /** The portal's address as this caller reaches it: where a person authorises a server. */
  portal: string;
}

export function callerOf(tenancy: Tenancy, key: ApiKeyInfo, portal: string): McpCaller {
  const place = placeOfKey({ people: { tenancy } }, key);
  return {
    key,
    portal,
    chain: tenancy.chain(key),
    place,
    actor: {
      kind: "key",
      id: key.id,
      name: key.name,
      role: "member",
      personId: key.userId,
      orgId: place.orgId,
      teamId: place.teamId,
      readOnly: true,
    },
  };
}
