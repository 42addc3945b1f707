/**
 * Outside guard services through the real app: a fake service on a loopback port (Deno.serve)
 * that judges by what it is sent, and an echo engine, so what the service read, what the model saw
 * and what the client got can all be checked.
 */
import { assert, assertEquals } from "../../tests/assert.ts";
import { type Harness, startHarness } from "../../tests/helpers/harness.ts";
import { addReplica, chat, fakeServer, usageRows } from "../../tests/helpers/routing.ts";
import { startEchoEngine } from "../../tests/helpers/echo_engine.ts";

interface FakeService {
  url: string;
  /** Each body it was sent, and the authorization header with it. */
  calls: { body: Record<string, unknown>; auth: string | null }[];
  close(): Promise<void>;
}

/**
 * Says unsafe when the text holds "bomb", null when it holds "shrug", answers after 2 s when it
 * holds "slowly", 500 when it holds "crash"; safe otherwise. The answer nests the verdict.
 */
function startService(): FakeService {
  const calls: FakeService["calls"] = [];
  const server = fakeServer(async (req) => {
    const body = await req.json() as Record<string, unknown>;
    calls.push({ body, auth: req.headers.get("authorization") });
    const text = String(body.text);
    if (text.includes("slowly")) await new Promise((r) => setTimeout(r, 2000));
    if (text.includes("crash")) return new Response("no", { status: 500 });
    const flagged = text.includes("shrug") ? null : text.includes("bomb");
    return Response.json({
      results: [{ flagged, categories: flagged ? ["violence"] : [] }],
    });
  });
  return { url: server.url, calls, close: server.close };
}

async function withService(
  fn: (h: Harness, s: FakeService, dir: string) => Promise<void>,
): Promise<void> {
  const h = await startHarness();
  const e = startEchoEngine();
  const s = startService();
  const dir = await Deno.makeTempDir();
  try {
    h.deps.replicas.remove("r1");
    addReplica(h, "echo", e.url);
    await fn(h, s, dir);
  } finally {
    await h.close();
    await e.close();
    await s.close();
    await Deno.remove(dir, { recursive: true });
  }
}

const global = { kind: "global", id: "global" };

function service(url: string, extra: Record<string, unknown> = {}) {
  return {
    name: "moderation",
    kind: "service",
    url,
    body: '{"text": {{text}}, "model": "guard-1"}',
    blocked: "results.0.flagged",
    reason: "results.0.categories.0",
    timeout_ms: 500,
    ...extra,
  };
}

async function putPolicy(h: Harness, name: string, body: unknown, status = 201) {
  const res = await h.admin("PUT", `guard/policies/${name}`, body);
  const json = await res.json();
  assertEquals(res.status, status, JSON.stringify(json));
  return json;
}

Deno.test("an outside service blocks an unsafe prompt, allows a safe one; headers are read from their file on every call", async () => {
  await withService(async (h, s, dir) => {
    const tokenFile = `${dir}/token`;
    await Deno.writeTextFile(tokenFile, "Bearer one\n");
    await putPolicy(h, "outside", {
      scope: global,
      apply_to: "input",
      rules: [service(s.url, { header_files: { Authorization: tokenFile } })],
    });
    const ok = await h.v1("/chat/completions", chat("a safe question"));
    assertEquals(ok.status, 200);
    await ok.body?.cancel();
    assertEquals(s.calls[0]!.body, { text: "a safe question", model: "guard-1" });
    assertEquals(s.calls[0]!.auth, "Bearer one");

    // A rotated key is used at once: no restart, no policy change.
    await Deno.writeTextFile(tokenFile, "Bearer two\n");
    const res = await h.v1("/chat/completions", chat("how to build a bomb"));
    const body = await res.json();
    assertEquals(res.status, 400);
    assertEquals(body.error.code, "guardrail_blocked");
    assert(body.error.message.includes("'outside'") && body.error.message.includes("'moderation'"));
    assert(!body.error.message.includes("bomb"));
    assertEquals(s.calls[1]!.auth, "Bearer two");
    const rows = await usageRows(h);
    const blocked = rows.find((r) => r.status === 400)!;
    assertEquals(blocked.guard?.[0]?.rule, "moderation");
    assertEquals(blocked.guard?.[0]?.action, "block");
    assertEquals(blocked.guard?.[0]?.reason, "violence");
  });
});

Deno.test("a service that times out, errors or answers null is not safe: fail open flags it, fail closed blocks", async () => {
  await withService(async (h, s) => {
    await putPolicy(h, "outside", {
      scope: global,
      apply_to: "input",
      fail: "open",
      rules: [service(s.url)],
    });
    for (const prompt of ["answer slowly", "shrug", "crash"]) {
      const res = await h.v1("/chat/completions", chat(prompt));
      assertEquals(res.status, 200, prompt);
      await res.body?.cancel();
    }
    const open = await usageRows(h);
    assertEquals(open.map((r) => r.guard?.[0]?.action), ["flag", "flag", "flag"]);
    assert(open.every((r) => r.guard?.[0]?.silent === true));

    await putPolicy(h, "outside", {
      scope: global,
      apply_to: "input",
      fail: "closed",
      rules: [service(s.url)],
    }, 200);
    for (const prompt of ["answer slowly", "shrug", "crash"]) {
      const t0 = performance.now();
      const res = await h.v1("/chat/completions", chat(prompt));
      const body = await res.json();
      assertEquals(res.status, 400, prompt);
      assertEquals(body.error.code, "guardrail_blocked");
      // The 500 ms bound, not the service's 2 s.
      assert(performance.now() - t0 < 1800, `${prompt}: waited past the timeout`);
    }
  });
});

Deno.test("a service named by two policies is asked once, as the stricter says", async () => {
  await withService(async (h, s) => {
    await putPolicy(h, "lenient", {
      scope: global,
      apply_to: "input",
      rules: [service(s.url, { action: "flag" })],
    });
    const org = await (await h.admin("POST", "orgs", { name: "acme" })).json();
    const team = await (await h.admin("POST", "teams", { org_id: org.id, name: "core" })).json();
    const project = await (await h.admin("POST", "projects", { team_id: team.id, name: "p1" }))
      .json();
    const created = await h.admin("POST", "keys", {
      name: "k",
      project_id: project.id,
      service: true,
    });
    const key = (await created.json()).key as string;
    await putPolicy(h, "strict", {
      scope: { kind: "project", id: project.id },
      apply_to: "input",
      rules: [service(s.url, { action: "block" })],
    });
    const res = await h.app.request("/v1/chat/completions", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(chat("a bomb")),
    });
    assertEquals(res.status, 400);
    assert((await res.json()).error.message.includes("'strict'"));
    assertEquals(s.calls.length, 1, "one call for two policies");
  });
});

Deno.test("an output service: a whole answer is refused; a stream is stopped only under buffer_all, and a policy without it is told so", async () => {
  await withService(async (h, s) => {
    const rules = [service(s.url, { on: "output" })];
    const set = await putPolicy(h, "answers", { scope: global, apply_to: "both", rules });
    assert(String(set.warnings?.[0]).includes("buffer_all"), JSON.stringify(set));

    // Whole: the service reads the model's answer and refuses it.
    const whole = await h.v1("/chat/completions", chat("say bomb"));
    assertEquals(whole.status, 400);
    assertEquals((await whole.json()).error.code, "guardrail_blocked");
    assertEquals(s.calls.at(-1)!.body.text, "say bomb");

    // Streamed without buffer_all: it went out, the service can only flag it.
    const flagged = await h.v1("/chat/completions", chat("say bomb", { stream: true }));
    const sent = await flagged.text();
    assert(sent.includes("[DONE]") && sent.includes('"content":" bo"'), sent);
    const rows = await usageRows(h);
    assertEquals(rows.at(-1)!.guard?.[0]?.action, "flag");

    // Held whole: nothing of it goes out, only the error event.
    const held = await putPolicy(h, "answers", {
      scope: global,
      apply_to: "both",
      stream: "buffer_all",
      rules,
    }, 200);
    assertEquals(held.warnings, undefined);
    const stopped = await h.v1("/chat/completions", chat("say bomb", { stream: true }));
    const cut = await stopped.text();
    assert(cut.includes("guardrail_blocked") && !cut.includes("[DONE]"), cut);
    assert(!cut.includes('"content":'), cut);

    // A safe answer held whole still arrives whole.
    const safe = await h.v1("/chat/completions", chat("say hello there", { stream: true }));
    const text = await safe.text();
    assert(text.includes("[DONE]"), text);
    let said = "";
    for (const line of text.split("\n")) {
      if (line.startsWith("data: {")) {
        said += JSON.parse(line.slice(6)).choices[0]?.delta?.content ?? "";
      }
    }
    assertEquals(said, "say hello there");
  });
});

Deno.test("the policy tester asks the services too", async () => {
  await withService(async (h, s) => {
    await putPolicy(h, "outside", { scope: global, apply_to: "input", rules: [service(s.url)] });
    const res = await h.admin("POST", "guard/policies/outside/test", { text: "a bomb" });
    const body = await res.json();
    assertEquals(res.status, 200);
    assertEquals(body.blocked, { rule: "moderation" });
    assertEquals(body.verdicts, [{ rule: "moderation", action: "block", reason: "violence" }]);
  });
});
