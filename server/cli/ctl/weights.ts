/** `llmgw ctl weights prune`: every connected node removes the fetched weights no model names. */
import { type Noun, printOne } from "./client.ts";

export const weights: Noun = {
  name: "weights",
  verbs: {
    prune: {
      help:
        `  weights prune                               Every node removes the fetched weights no model uses`,
      run: async (ctx) => {
        const r = await ctx.api.post("weights/prune").json<{ nodes: number; failed: string[] }>();
        const text = `asked ${r.nodes} node(s) to remove the weights no model uses` +
          (r.failed.length ? `; failed: ${r.failed.join("; ")}` : "");
        printOne(ctx.json, r, text);
        return r.failed.length ? 1 : 0;
      },
    },
  },
};
