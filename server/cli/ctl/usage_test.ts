import { assertEquals, assertMatch } from "../../../tests/assert.ts";
import { startTestControlPlane } from "../../../tests/helpers/control_plane.ts";
import { fakeServer } from "../../../tests/helpers/routing.ts";
import { ctlCommand } from "./mod.ts";

async function ctl(args: string[]) {
  const lines: string[] = [];
  const orig = console.log;
  console.log = (...a: unknown[]) => lines.push(a.join(" "));
  try {
    return { code: await ctlCommand.run(args), out: lines.join("\n") };
  } finally {
    console.log = orig;
  }
}

Deno.test("ctl usage list: the recent rows; a prompt the gateway estimated reads ~N", async () => {
  const t = await startTestControlPlane({ flags: { "router-stream-idle-timeout-ms": "150" } });
  // An engine that sends one piece, then nothing: cut as stalled, before any usage report.
  const stalling = fakeServer(() =>
    new Response(
      new ReadableStream({
        start(ctrl) {
          ctrl.enqueue(
            new TextEncoder().encode('data: {"choices":[{"delta":{"content":"a"}}]}\n\n'),
          );
        },
      }),
      { headers: { "content-type": "text/event-stream" } },
    )
  );
  try {
    const ok = await t.chat({
      model: "demo",
      max_tokens: 3,
      messages: [{ role: "user", content: "hi" }],
    });
    assertEquals(ok.status, 200);
    await ok.body?.cancel();
    t.cp.deps.replicas.remove("local/demo");
    t.cp.deps.replicas.upsert({
      id: "stuck",
      model: "demo",
      baseUrl: stalling.url,
      apiKey: "eng",
      state: "ready",
    });
    const cut = await t.chat({
      model: "demo",
      stream: true,
      messages: [{ role: "user", content: "hi" }],
    });
    await cut.text();
    const base = ["--url", t.cp.url, "--token", t.adminToken];
    // Usage is written every 50 ms here.
    let rows: { status: number; promptTokens: number; promptEstimated: boolean }[] = [];
    for (let i = 0; i < 40 && rows.length < 2; i++) {
      if (i) await new Promise((r) => setTimeout(r, 50));
      const json = await ctl(["usage", "list", "--json", ...base]);
      assertEquals(json.code, 0);
      rows = JSON.parse(json.out);
    }
    assertEquals(rows.map((r) => r.status), [504, 200], "newest first");
    assertEquals(rows.map((r) => r.promptEstimated), [true, false]);
    const table = await ctl(["usage", "list", ...base]);
    assertEquals(table.code, 0);
    const [head, stalled, whole] = table.out.split("\n");
    assertMatch(head!, /^When\s+Key\s+Model\s+Prompt tokens/);
    assertMatch(
      stalled!,
      new RegExp(`demo\\s+~${rows[0]!.promptTokens}\\s+1\\s+\\$\\d+\\.\\d+\\s+504`),
    );
    assertMatch(
      whole!,
      new RegExp(`demo\\s+${rows[1]!.promptTokens}\\s+3\\s+\\$\\d+\\.\\d+\\s+200`),
    );
  } finally {
    await stalling.close();
    await t.close();
  }
});
