/**
 * Out of descriptors, accept fails: the edge sheds its longest-idle connection and accepts again,
 * logs once for the episode, counts it, and never ends the process.
 */
import { assert, assertEquals } from "../../tests/assert.ts";
import { get, RawClient } from "../../tests/helpers/raw_http.ts";

Deno.test({
  name:
    "edge: accept failing with EMFILE sheds the longest-idle connection, logs once, and serves on",
  ignore: Deno.build.os !== "linux",
  sanitizeResources: false,
  async fn() {
    const script = new URL("./testdata/edge_no_budget.ts", import.meta.url).pathname;
    const child = new Deno.Command("prlimit", {
      args: ["--nofile=128:128", Deno.execPath(), "run", "-A", script],
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    let out = "";
    const pump = (async () => {
      for await (const s of child.stdout.pipeThrough(new TextDecoderStream())) out += s;
    })();
    const clients: RawClient[] = [];
    try {
      let port = 0;
      for (let i = 0; i < 200 && !port; i++) {
        port = Number(/port (\d+)/.exec(out)?.[1] ?? 0);
        await new Promise((r) => setTimeout(r, 50));
      }
      assert(port, `no port in ${out}`);
      // Far more idle connections than the process has descriptors.
      for (let i = 0; i < 300; i++) clients.push(await RawClient.connect(port));
      const health = await RawClient.connect(port);
      await health.send(get("/counts"));
      const a = await health.answer(5_000);
      assertEquals(a?.status, 200, "served while out of descriptors");
      const counts = JSON.parse(a!.body);
      assert(counts.descriptors > 0, `accept failed for descriptors: ${a!.body}`);
      assert(counts.cut_shed > 0, `idle connections were shed: ${a!.body}`);
      const oldest = clients[0]!;
      assert(await oldest.closedWithin(1_000), "the longest-idle connection was shed");
      const lines = out.split("\n").filter((l) => l.includes("out of file descriptors"));
      assertEquals(lines.length, 1, "logged once for the episode");
      health.close();
    } finally {
      for (const c of clients) c.close();
      child.kill("SIGKILL");
      await child.status;
      await child.stderr.cancel();
      await pump;
    }
  },
});
