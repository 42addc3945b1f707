/** What the control plane's node side offers the rest of it: the hub and join codes. */
import type { JoinCodes } from "./join_codes.ts";
import type { NodeHub } from "./node_hub.ts";

export interface NodeServices {
  hub: NodeHub;
  joinCodes: JoinCodes;
  joinCodeTtlMs: number;
}
