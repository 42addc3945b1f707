/** What the portal is built from: the admin API's services (it calls that API in-process), and chat. */
import type { BodyLimit } from "../router/read_body.ts";
import type { DispatchDeps } from "../router/dispatch.ts";
import type { AdminDeps } from "../routes/admin/mod.ts";
import type { RecentSamples } from "../observe/recent_samples.ts";

export interface PortalDeps extends AdminDeps {
  limits: BodyLimit;
  dispatch: DispatchDeps;
  /** The last hour per card and per model, for the charts. */
  samples: RecentSamples;
}
