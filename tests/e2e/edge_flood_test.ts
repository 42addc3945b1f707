/**
 * A real `llmgw up` under a low open-file limit (`prlimit --nofile=1024`), flooded by 2,000
 * connections that send nothing and 40 clients sending their headers a byte at a time: meanwhile
 * /health and chat completions keep being answered, the silent connections are closed within
 * the idle timeout (the longest idle first, when room is needed), the slow ones at the header
 * timeout, and the process is alive at the end and stops cleanly.
 */
import { assert, assertEquals } from "../assert.ts";
import { startAppliance } from "../helpers/appliance.ts";
import { get, RawClient } from "../helpers/raw_http.ts";

const idleMs = 3_000;
const headerMs = 2_000;

Deno.test({
  name:
    "edge: under prlimit --nofile=1024, 2,000 silent and 40 slow-header connections take nothing down",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const app = await startAppliance({
      wrap: ["prlimit", "--nofile=1024:1024"],
      args: [
        "--listener-idle-timeout-ms",
        String(idleMs),
        "--listener-header-timeout-ms",
        String(headerMs),
        // All from 127.0.0.1: the cap per address is another test's; here the descriptors run out.
        "--listener-max-connections-per-address",
        "0",
      ],
    });
    const port = Number(new URL(app.url).port);
    const silent: RawClient[] = [];
    const slow: RawClient[] = [];
    try {
      const started = performance.now();
      for (let i = 0; i < 2_000; i += 100) {
        const batch = await Promise.all(
          Array.from({ length: 100 }, () => RawClient.connect(port)),
        );
        silent.push(...batch);
      }
      for (let i = 0; i < 40; i++) slow.push(await RawClient.connect(port));
      const head = get("/health", { "x-padding": "p".repeat(500) });
      let trickling = true;
      const trickle = (async () => {
        for (let i = 0; trickling && i < head.length; i++) {
          await Promise.all(
            slow.map((c) => c.ended ? undefined : c.send(head[i]!).catch(() => {})),
          );
          await new Promise((r) => setTimeout(r, 200));
        }
      })();

      // While the flood holds, the gateway answers: a fresh connection each time.
      let answered = 0;
      while (performance.now() - started < idleMs + 1_000) {
        const c = await RawClient.connect(port);
        await c.send(get("/health"));
        const a = await c.answer(5_000);
        assertEquals(a?.status, 200, "/health during the flood");
        c.close();
        const res = await fetch(`${app.url}/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${app.key}`, "content-type": "application/json" },
          body: JSON.stringify({
            model: "demo",
            max_tokens: 4,
            messages: [{ role: "user", content: "hi" }],
          }),
        });
        assertEquals(res.status, 200, "a chat completion during the flood");
        await res.text();
        answered++;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert(answered >= 3, `only ${answered} rounds answered`);

      const closedBy = started + idleMs + 3_000;
      for (const c of silent) {
        assert(
          await c.closedWithin(closedBy - performance.now()),
          "a silent connection outlived the idle timeout",
        );
      }
      for (const c of slow) {
        assert(
          await c.closedWithin(closedBy - performance.now()),
          "a slow-header client outlived the header timeout",
        );
      }
      trickling = false;
      await trickle;

      const res = await fetch(`${app.url}/health`);
      assertEquals(res.status, 200, "alive after the flood");
      await res.body?.cancel();
      assert(!/Too many open files.*\n.*at /i.test(app.output()), "no crash on EMFILE");
      assertEquals(await app.stop(), 0);
    } finally {
      for (const c of [...silent, ...slow]) c.close();
      await app.kill("SIGKILL");
      await Deno.remove(app.dataDir, { recursive: true });
    }
  },
});

Deno.test({
  name: "edge: the soft open-file limit is raised to the hard one at start, and logged",
  sanitizeResources: false,
  async fn() {
    const app = await startAppliance({ wrap: ["prlimit", "--nofile=1024:8192"] });
    try {
      const limits = await Deno.readTextFile(`/proc/${app.pid}/limits`);
      assert(/Max open files\s+8192\s+8192/.test(limits), limits);
      assert(/"open-file limit","soft":8192,"hard":8192/.test(app.output()), app.output());
      assertEquals(await app.stop(), 0);
    } finally {
      await app.kill("SIGKILL");
      await Deno.remove(app.dataDir, { recursive: true });
    }
  },
});
