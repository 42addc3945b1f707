/**
 * The models admin page's forms and the cluster settings form, through the portal's front door
 * with the real models service (catalog, replica table, reconciler; no nodes joined) and the real
 * cluster settings: a member gets 404, a form without the CSRF token is refused, an administrator
 * stops / starts / changes context / removes, plans and serves a real GGUF, and changes a setting.
 */
import { assert, assertEquals } from "../../tests/assert.ts";
import { fixture, fixtureAbsent } from "../../tests/helpers/fixtures.ts";
import { skipNote } from "../../tests/helpers/skip.ts";
import { startHarness } from "../../tests/helpers/harness.ts";
import { portalBrowser } from "../../tests/helpers/portal_browser.ts";
import { makeTenant } from "../../tests/helpers/tenants.ts";
import { resolveSettings } from "../../core/settings.ts";
import { buildApp } from "../wiring/app.ts";
import { type ServerConfig, serverSettings } from "../wiring/config.ts";
import { parseModel } from "../models/model_yaml.ts";
import { startModels } from "../wiring/start_models.ts";
import { NodeHub } from "../nodes/node_hub.ts";
import { NodeStore } from "../nodes/node_store.ts";
import { ClusterSettings } from "../settings/cluster_settings.ts";
import { silentLogger } from "../../core/log.ts";
import { hashPassword } from "../auth/passwords.ts";

const password = "correct horse battery staple";

async function setup() {
  const h = await startHarness();
  const config = {
    ...resolveSettings(serverSettings, { flags: {}, env: {} }),
    dataDir: "/nonexistent",
  } as unknown as ServerConfig;
  const d = h.deps;
  const nodes = new NodeStore({ store: d.store, clock: d.clock });
  const hub = new NodeHub({
    nodes,
    clock: d.clock,
    logger: silentLogger,
    replicas: d.replicas,
    catalog: d.catalog,
    clusterSecret: "s",
    settings: {
      heartbeatMs: 1000,
      lostAfterMs: 4000,
      replaceAfterMs: 4000,
      idleMs: 10_000,
      answerMs: 5000,
    },
  });
  const models = await startModels(config, {
    store: d.store,
    clock: d.clock,
    logger: silentLogger,
    catalog: d.catalog,
    replicas: d.replicas,
    hub,
    nodes,
  });
  const settings = await ClusterSettings.open({
    store: d.store,
    clock: d.clock,
    logger: silentLogger,
    defs: serverSettings,
    config: config as unknown as Record<string, unknown>,
  });
  await models.services.add([
    parseModel({ name: "m1", source: "/models/m1.gguf", profiles: [{ engine: "llamacpp" }] }),
  ]);
  const app = buildApp({
    ...d,
    modelServices: models.services,
    settings,
    portal: { publicUrl: "" },
  });
  await makeTenant(h, "acme");
  await h.deps.people.tenancy.createPerson({
    username: "root",
    email: "root@example.com",
    displayName: null,
    role: "administrator",
    orgId: null,
    teamId: null,
    passwordHash: await hashPassword(password),
  });
  const { signIn, get, post, csrfOf } = portalBrowser(app, password);
  const close = async () => {
    models.close();
    hub.close();
    await h.close();
  };
  return { h, app, models, signIn, get, post, csrfOf, close };
}

/** Every new form: its path and fields. */
const forms: [string, Record<string, string>][] = [
  ["/admin/models/m1/stop", {}],
  ["/admin/models/m1/start", {}],
  ["/admin/models/m1/restart", {}],
  ["/admin/models/m1/context", { tokens: "2048" }],
  ["/admin/models/m1/remove", {}],
  ["/admin/models/plan", { source: "/x.gguf" }],
  ["/admin/models/serve", { source: "/x.gguf" }],
  ["/admin/settings/cluster", { key: "log_level", value: "debug" }],
];

Deno.test("portal models forms: a member gets 404; no CSRF token, refused", async () => {
  const { h, signIn, get, post, csrfOf, close } = await setup();
  try {
    const member = await signIn("mel@acme.example");
    const memberCsrf = await csrfOf("/profile", member);
    assertEquals((await get("/admin/models/m1/remove", member)).status, 404);
    for (const [path, fields] of forms) {
      const res = await post(path, member, { ...fields, _csrf: memberCsrf });
      assertEquals(res.status, 404, `member: ${path}`);
    }
    const admin = await signIn("root@example.com");
    for (const [path, fields] of forms) {
      const res = await post(path, admin, fields);
      assertEquals(res.status, 403, `no token: ${path}`);
      const forged = await post(path, admin, { ...fields, _csrf: memberCsrf });
      assertEquals(forged.status, 403, `another session's token: ${path}`);
    }
    assert(!h.deps.catalog.get("m1")!.stopped, "nothing changed");
  } finally {
    await close();
  }
});

Deno.test("portal models forms: stop, start, context, remove with a confirm step", async () => {
  const { h, signIn, get, post, csrfOf, close } = await setup();
  try {
    const admin = await signIn("root@example.com");
    const page = await (await get("/admin/models", admin)).text();
    assert(page.includes('action="/admin/models/m1/stop"'), "m1 can be stopped");
    assert(page.includes('action="/admin/models/plan"'), "the serve form is there");
    const csrf = await csrfOf("/admin/models", admin);

    const stopped = await post("/admin/models/m1/stop", admin, { _csrf: csrf });
    assertEquals(stopped.status, 200);
    const stoppedHtml = await stopped.text();
    assert(h.deps.catalog.get("m1")!.stopped, "the catalog says stopped");
    assert(stoppedHtml.includes('action="/admin/models/m1/start"'), "now it can be started");
    const member = await signIn("mel@acme.example");
    const forMel = await (await get("/models", member)).text();
    const rowOf = (name: string) => {
      const at = forMel.indexOf(`>${name}</a>`);
      assert(at > 0, `${name} is listed for mel`);
      return forMel.slice(at, forMel.indexOf("</tbody>", at));
    };
    assert(rowOf("m1").includes("Stopped by an administrator"), "the people-facing page says so");
    assert(!rowOf("demo").includes("Stopped by an administrator"), "only the stopped one");

    const started = await post("/admin/models/m1/start", admin, { _csrf: csrf });
    assertEquals(started.status, 200);
    assert(!h.deps.catalog.get("m1")!.stopped, "started again");

    const ctx = await post("/admin/models/m1/context", admin, {
      _csrf: csrf,
      tokens: "",
      max_output: "512",
    });
    const ctxHtml = await ctx.text();
    assertEquals(ctx.status, 200, ctxHtml.slice(0, 400));
    assert(ctxHtml.includes("Saved"), "the change is saved");
    const def = h.deps.catalog.get("m1")!.def as Record<string, unknown>;
    assertEquals(JSON.stringify(def).includes("512"), true, JSON.stringify(def));
    const bad = await post("/admin/models/m1/context", admin, { _csrf: csrf, tokens: "-3" });
    assertEquals(bad.status, 400, "an invalid number is the API's refusal, in words");

    const confirm = await (await get("/admin/models/m1/remove", admin)).text();
    assert(confirm.includes('name="purge"'), "the confirm step offers the files too");
    assert(h.deps.catalog.get("m1"), "asking is not removing");
    const removed = await post("/admin/models/m1/remove", admin, { _csrf: csrf, purge: "true" });
    assertEquals(removed.status, 200);
    assertEquals(h.deps.catalog.get("m1"), undefined);
  } finally {
    await close();
  }
});

Deno.test({
  name: "portal serve form: plan a missing file, plan a real GGUF, then serve it" +
    skipNote(fixtureAbsent("tiny-random-llama.gguf")),
  ignore: !fixture("tiny-random-llama.gguf"),
}, async () => {
  const gguf = fixture("tiny-random-llama.gguf")!;
  const { h, signIn, post, csrfOf, close } = await setup();
  try {
    const admin = await signIn("root@example.com");
    const csrf = await csrfOf("/admin/models", admin);
    const missing = await post("/admin/models/plan", admin, {
      _csrf: csrf,
      source: "/nowhere/x.gguf",
    });
    assertEquals(missing.status, 400);
    assert((await missing.text()).includes("no such file"));

    const fields = { source: gguf, name: "tiny", context: "256", slots: "1" };
    const plan = await post("/admin/models/plan", admin, { _csrf: csrf, ...fields });
    const html = await plan.text();
    assertEquals(plan.status, 200, html.slice(0, 400));
    assert(html.includes("Plan for tiny"), "the plan is shown");
    assert(html.includes("Memory per replica"), "with the filled-in estimate");
    // No node has joined: the plan warns (it may not run) but does not refuse a local GGUF.
    assert(!html.includes("It cannot be served"), html.slice(html.indexOf("Plan for")));
    assert(html.includes('action="/admin/models/serve"'), "so it can be served");
    const served = await post("/admin/models/serve", admin, { _csrf: csrf, ...fields });
    const out = await served.text();
    assertEquals(served.status, 200, out.slice(0, 400));
    assert(out.includes("tiny was added"), out.slice(0, 400));
    assert(h.deps.catalog.get("tiny"), "in the catalog");
    const again = await post("/admin/models/plan", admin, { _csrf: csrf, ...fields });
    const againHtml = await again.text();
    assert(againHtml.includes("It cannot be served"), "the name is taken now: a refusal");
    assert(!againHtml.includes('action="/admin/models/serve"'), "and no serve button");
  } finally {
    await close();
  }
});

Deno.test("portal settings: the cluster's settings, live or restart; a change is saved", async () => {
  const { signIn, get, post, csrfOf, close } = await setup();
  try {
    const admin = await signIn("root@example.com");
    const html = await (await get("/admin/settings", admin)).text();
    assert(html.includes("Cluster settings"));
    assert(html.includes("at once") && html.includes("at restart"), "each says when it applies");
    const csrf = await csrfOf("/admin/settings", admin);
    const bad = await post("/admin/settings/cluster", admin, {
      _csrf: csrf,
      key: "no_such_setting",
      value: "1",
    });
    assertEquals(bad.status, 400);
    assert((await bad.text()).includes("unknown setting"));
    const set = async (key: string, value: string) => {
      const res = await post("/admin/settings/cluster", admin, { _csrf: csrf, key, value });
      return { status: res.status, text: await res.text() };
    };
    const level = await set("log_level", "debug");
    assertEquals(level.status, 200, level.text.slice(0, 300));
    assert(level.text.includes("Saved"));
    const body = await set("router.max_body_bytes", "2000000");
    assertEquals(body.status, 200, "a number setting takes the typed number");
    assert(body.text.includes("2000000"), "and the list shows it");
    const url = await set("public_url", "https://llm.example");
    assert(url.text.includes("applies when the server restarts"), "a restart setting says so");
    const wrong = await set("router.max_body_bytes", "lots");
    assertEquals(wrong.status, 400, "the API's refusal, in words");
  } finally {
    await close();
  }
});
