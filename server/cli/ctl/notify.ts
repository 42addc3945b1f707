/** `ctl notify test`: a test notification to each webhook, and each answer. */
import type { Noun } from "./client.ts";

export const notify: Noun = {
  name: "notify",
  verbs: {},
  // Whatever follows `notify` runs the test, as `notify test` always has.
  bare: {
    help:
      `  notify test                                 Send a test notification to each webhook; show each answer`,
    run: async (ctx) => {
      const { data } = await ctx.api.post("notify/test").json<
        { data: { url: string; ok: boolean; detail: string }[] }
      >();
      if (ctx.json) console.log(JSON.stringify(data, null, 2));
      else if (data.length === 0) console.log("No webhooks are set (notify.webhooks).");
      else {
        for (const r of data) console.log(`${r.ok ? "ok    " : "FAILED"}  ${r.url}  ${r.detail}`);
      }
      return data.every((r) => r.ok) ? 0 : 1;
    },
  },
};
