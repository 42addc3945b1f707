/** Settings of control planes sharing one store (server/control/). */
import { int, text } from "../../core/settings.ts";

export const controlSettings = {
  leaseTtlMs: int(
    "control.lease_ttl_ms",
    10_000,
    "How long the leader's lease lasts unrenewed (renewed every third of it); a standby takes over once it lapses, in ms",
    { min: 300 },
  ),
  controlId: text(
    "control.id",
    "",
    "This control plane's name in the leader lease and /leader (empty: HOSTNAME:DATA_DIR)",
  ),
};
