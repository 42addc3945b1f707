/**
 * The portal in a real browser (Debian's Chromium driven by playwright-core) against a real
 * `llmgw up`: the administrator signs in, sees the demo model with its description, chats (an
 * answer with Markdown and a code block streams, is stopped, is asked again), makes a key and
 * uses it with the OpenAI SDK, sees that request in the usage chart, makes a team and a member;
 * the member cannot open administration pages or see the other team's usage; a model's page shows
 * its engine's log (the sim engine's own line) and reads it again. Then every page the
 * administrator, an operator, a tenant administrator and a member can reach is walked in English
 * and in Turkish at 1280 and 375 px: each passes the in-page accessibility check (labels, names,
 * contrast) and the layout check by element boxes (tests/helpers/portal_layout.ts), and a Turkish
 * page shows no English message. Screenshots go to tests/artifacts/portal/ (or $LLMGW_ARTIFACTS),
 * named LANG-ROLE-PAGE-WIDTH.png; the test prints the folder. Skips, saying why, where
 * /usr/bin/chromium is not installed.
 */
import { type BrowserContext, chromium, type Page } from "playwright-core";
import OpenAI from "openai";
import { assert, assertEquals } from "../assert.ts";
import { a11yCheck } from "../helpers/a11y.ts";
import { layoutCheck } from "../helpers/portal_layout.ts";
import { skipNote } from "../helpers/skip.ts";
import { startAppliance } from "../helpers/appliance.ts";
import { portalEn } from "../../locales/portal_en.ts";
import { portalTr } from "../../locales/portal_tr.ts";

const chromiumPath = Deno.env.get("LLMGW_CHROMIUM") ?? "/usr/bin/chromium";
const haveChromium = (() => {
  try {
    return Deno.statSync(chromiumPath).isFile;
  } catch {
    return false;
  }
})();
if (!haveChromium) {
  console.warn(
    `portal browser test skipped: ${chromiumPath} is not installed (apt-get install chromium)`,
  );
}

const artifacts = Deno.env.get("LLMGW_ARTIFACTS") ??
  new URL("../artifacts/portal/", import.meta.url).pathname;
const widths = [1280, 375];

/** English messages as fragments (parameters cut out) that must not show on a Turkish page. */
const englishFragments = (() => {
  const en = portalEn as Record<string, string>;
  const tr = portalTr as Record<string, string>;
  const out = new Set<string>();
  for (const [k, v] of Object.entries(en)) {
    if (tr[k] === v) continue;
    for (const part of v.split(/\{\w+\}/)) {
      const f = part.trim().replace(/^[,.:;()\s]+|[,.:;()\s]+$/g, "");
      if (f.length >= 2 && /[A-Za-z]/.test(f)) out.add(f);
    }
  }
  return [...out];
})();
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const englishRe = englishFragments.map((f) => ({
  f,
  re: new RegExp(`(^|[^\\p{L}])${escapeRe(f)}($|[^\\p{L}])`, "u"),
}));

Deno.test({
  name:
    "portal in Chromium: sign-in, models, chat, keys with the SDK, usage, team and member, Turkish" +
    skipNote(haveChromium ? undefined : `${chromiumPath} not installed`),
  ignore: !haveChromium,
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  await Deno.mkdir(artifacts, { recursive: true });
  const app = await startAppliance();
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    // Playwright gives each launch a new, empty profile directory (its own --user-data-dir).
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  const contexts: BrowserContext[] = [];
  let shots = 0;
  const newPage = async (locale: string) => {
    const ctx = await browser.newContext({
      locale,
      viewport: { width: 1280, height: 900 },
      acceptDownloads: true,
    });
    contexts.push(ctx);
    const page = await ctx.newPage();
    page.setDefaultTimeout(10_000);
    return page;
  };
  const password = /Password:\s+(\S+)/.exec(app.output())?.[1];
  assert(password, "up printed the administrator's password");
  const adminToken = (await Deno.readTextFile(`${app.dataDir}/admin.token`)).trim();
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${app.url}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const json = await res.json();
    assert(res.ok, `${method} ${path}: ${JSON.stringify(json)}`);
    return json;
  };

  /** Both widths: lang, accessibility, layout by boxes, no English in Turkish, a screenshot each. */
  const checked = async (page: Page, name: string, lang: "en" | "tr") => {
    assertEquals(await page.getAttribute("html", "lang"), lang, `${name}: <html lang>`);
    if (lang === "tr") {
      // Model output, code, the catalog's descriptions and the server's own texts (a replica's
      // reason, a plan's refusals, an engine's output: class "data") are not the portal's words.
      const text = await page.evaluate(`(() => {
        const body = document.body.cloneNode(true);
        body.querySelectorAll("script, style, pre, .mono, .data, .msg .body, tr.desc span")
          .forEach((e) => e.remove());
        return body.textContent;
      })()`) as string;
      const english = englishRe.filter(({ re }) => re.test(text)).map(({ f }) => f);
      assertEquals(english, [], `${name}: English on a Turkish page`);
    }
    for (const width of widths) {
      await page.setViewportSize({ width, height: 900 });
      const problems = await page.evaluate(a11yCheck) as string[];
      assertEquals(problems, [], `${name} at ${width}: accessibility`);
      const layout = await page.evaluate(layoutCheck) as string[];
      assertEquals(layout, [], `${name} at ${width}: layout`);
      await page.screenshot({ path: `${artifacts}/${lang}-${name}-${width}.png`, fullPage: true });
      shots++;
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  };
  const signIn = async (page: Page, login: string, pw: string) => {
    await page.goto(app.url);
    await page.fill("#login", login);
    await page.fill("#password", pw);
    await Promise.all([page.waitForURL(/\/models$/), page.click("form[action='/login'] button")]);
  };
  const answered = `!document.getElementById("chat-send").disabled &&
      /\\d/.test(document.getElementById("chat-status").textContent)`;
  const chat = async (page: Page, text: string) => {
    await page.goto(`${app.url}/chat`);
    await page.fill("#chat-input", text);
    await page.click("#chat-send");
    await page.waitForFunction(answered);
    const answer = await page.textContent(".msg.assistant .body");
    assert((answer ?? "").trim().length > 0, "an answer was streamed");
  };
  const usageText = async (page: Page, path = "/usage") => {
    await page.goto(`${app.url}${path}`);
    return await page.textContent("main") ?? "";
  };

  try {
    // ---- the administrator, in English ----
    const admin = await newPage("en-US");
    await signIn(admin, "admin", password);
    const row = admin.locator("tbody.model", { hasText: "demo" });
    assert((await row.locator("tr.desc").textContent())?.includes("Simulated model"));

    await chat(admin, "Hello there, **who** are you?");
    assert(/tokens\/s/.test(await admin.textContent("#chat-status") ?? ""), "count and speed");
    await admin.reload();
    assertEquals(await admin.locator(".msg").count(), 2, "the conversation is kept");

    // Markdown and a code block stream (the sim engine echoes what follows "echo:"), are
    // stopped half way, and are asked for again.
    await admin.click("#chat-new");
    assertEquals(await admin.locator(".msg").count(), 0, "a new conversation");
    assertEquals(await admin.locator("#chat-list li").count(), 2, "both are listed");
    await admin.click("#chat-settings summary");
    await admin.fill("#chat-system", "Answer briefly.");
    await admin.fill("#chat-temperature", "0.2");
    await admin.fill("#chat-max-tokens", "2000");
    // About 1,100 tokens each way: 5 s at the sim engine's 200 tokens/s, inside its 4,096-token
    // slot with the prompt.
    const tail = "More words follow here, one after another. ".repeat(120);
    await admin.fill(
      "#chat-input",
      `echo: ## Plan\n\nA **bold** step.\n\n\`\`\`js\nconst answer = 42; // kept\n\`\`\`\n\n${tail}`,
    );
    await admin.click("#chat-send");
    await admin.waitForSelector(".msg.assistant pre code .tok-k");
    assertEquals(
      await admin.textContent(".msg.assistant strong"),
      "bold",
      "Markdown as it streams",
    );
    assert(await admin.isVisible(".msg.assistant pre button.copy-code"), "a copy button");
    await admin.click("#chat-stop");
    await admin.waitForFunction(`!document.getElementById("chat-send").disabled`);
    assertEquals(await admin.textContent("#chat-status"), portalEn.chat_stopped);
    const cut = (await admin.textContent(".msg.assistant .body")) ?? "";
    // The answer repeats one sentence, so a cut can fall right after one: compare lengths.
    assert(
      cut.length < tail.length,
      `stopped before the end (${cut.length} chars: …${cut.slice(-60)})`,
    );
    await checked(admin, "admin-chat-stopped", "en");
    await admin.click(`.msg.assistant button:text("${portalEn.chat_regenerate}")`);
    await admin.waitForFunction(answered);
    assertEquals(await admin.locator(".msg.assistant").count(), 1, "asked again, not added");
    const whole = (await admin.textContent(".msg.assistant .body")) ?? "";
    assert(whole.trim().endsWith("another."), "the whole answer the second time");
    assert(whole.includes("const answer = 42;"), "the code block");
    const download = admin.waitForEvent("download");
    await admin.click("#chat-export");
    const saved = JSON.parse(await Deno.readTextFile((await (await download).path())!));
    assertEquals(saved.length, 2, "both conversations exported");
    await admin.click(`.msg.user button:text("${portalEn.chat_edit}")`);
    assert((await admin.inputValue("#chat-input")).startsWith("echo: ## Plan"), "edit");
    assertEquals(await admin.locator(".msg").count(), 0, "what came after is dropped");
    await admin.fill("#chat-input", "");

    await admin.goto(`${app.url}/keys`);
    await admin.fill("#key-name", "sdk-laptop");
    await admin.click("form[action='/keys'] button[type=submit]");
    const key = await admin.inputValue("#new-key");
    assert(key.startsWith("sk-llmgw-"), "the key is shown");
    await checked(admin, "admin-keys-made", "en");
    const client = new OpenAI({ baseURL: `${app.url}/v1`, apiKey: key, maxRetries: 0 });
    const done = await client.chat.completions.create({
      model: "demo",
      messages: [{ role: "user", content: "Hi from the SDK" }],
    });
    assert((done.choices[0]?.message.content ?? "").length > 0);
    await admin.goto(`${app.url}/keys`);
    assert(!(await admin.content()).includes(key), "the key is never shown again");

    let usage = "";
    for (let i = 0; i < 40 && !usage.includes("sdk-laptop"); i++) {
      usage = await usageText(admin);
      if (!usage.includes("sdk-laptop")) await new Promise((r) => setTimeout(r, 150));
    }
    assert(usage.includes("sdk-laptop"), "the SDK's request is in usage, by key");
    const bars = await admin.$$eval(
      "svg[data-chart=requests] rect.bar",
      (rs) => rs.reduce((a, r) => a + Number(r.getAttribute("data-value")), 0),
    );
    assert(bars >= 2, `the chart counts the chat and the SDK request (${bars})`);
    const pieces = await admin.$$eval(
      "svg[data-chart=requests-by-model] rect.piece[data-series=demo]",
      (rs) => rs.reduce((a, r) => a + Number(r.getAttribute("data-value")), 0),
    );
    assertEquals(pieces, bars, "stacked by model, the same requests");
    await admin.selectOption("#usage-key", { label: "sdk-laptop" });
    await admin.click("form.usage-filter button");
    assertEquals(await admin.locator("#by-key-h + .scroll tbody tr").count(), 1, "one key");
    assert((await admin.textContent("#by-key-h + .scroll tbody"))!.includes("sdk-laptop"));

    // A team, a second team with its own usage, and a member made through the pages.
    await admin.goto(`${app.url}/admin/tree`);
    await admin.fill("#new-org-name", "Acme");
    await admin.click("form[action='/admin/orgs'] button");
    for (const team of ["Blue", "Red"]) {
      await admin.selectOption("#new-team-parent", { label: "Acme" });
      await admin.fill("#new-team-name", team);
      await admin.click("form[action='/admin/teams'] button");
      assert((await admin.textContent("main"))?.includes(team));
    }
    const teams = (await api("GET", "/teams")).data as {
      id: string;
      name: string;
      orgId: string;
    }[];
    const red = teams.find((t) => t.name === "Red")!;
    const redProject = await api("POST", "/projects", { team_id: red.id, name: "red-app" });
    const rita = await api("POST", "/people", {
      username: "rita",
      role: "member",
      org_id: red.orgId,
      team_id: red.id,
    });
    const ritaKey = await api("POST", "/keys", {
      name: "rita-key",
      project_id: redProject.id,
      person_id: rita.id,
    });
    await new OpenAI({ baseURL: `${app.url}/v1`, apiKey: ritaKey.key, maxRetries: 0 }).chat
      .completions.create({ model: "demo", messages: [{ role: "user", content: "red" }] });

    await admin.goto(`${app.url}/admin/people`);
    await admin.fill("#p-username", "bob");
    await admin.fill("#p-email", "bob@acme.example");
    await admin.selectOption("#p-role", "member");
    await admin.selectOption("#p-place", { label: "Acme / Blue" });
    await admin.click("form[action='/admin/people'] button[type=submit]");
    const bobPassword = await admin.inputValue("#new-password");
    assert(bobPassword.length >= 12, "a generated password, shown once");
    await checked(admin, "admin-people-made", "en");
    // Live refresh: the models table is re-read every 4 s, but not while a form has typing.
    await admin.goto(`${app.url}/admin/models`);
    const mark = `(() => { document.querySelector("#live table").dataset.mark = "old"; })()`;
    const marked = `!!document.querySelector("#live table[data-mark=old]")`;
    await admin.evaluate(`(() => {
      const f = document.createElement("form");
      f.innerHTML = '<label for="probe">probe</label><input id="probe">';
      document.querySelector("main").append(f);
    })()`);
    await admin.evaluate(mark);
    await admin.fill("#probe", "typing");
    await new Promise((r) => setTimeout(r, 4_600));
    assert(await admin.evaluate(marked), "no refresh while a form has unsent typing");
    assert(await admin.isVisible("#live-paused"), "the page says the refresh is paused");
    await admin.evaluate(`document.querySelector("#probe").closest("form").remove()`);
    await admin.evaluate(`document.activeElement.blur()`);
    await admin.waitForFunction(`!${marked}`, undefined, { timeout: 6_000 });

    // The administrator stops the demo model from the page, sees it stopped, and starts it again.
    await admin.goto(`${app.url}/admin/models`);
    await admin.click("form[action='/admin/models/demo/stop'] button");
    await admin.waitForSelector("form[action='/admin/models/demo/start']");
    await admin.waitForSelector("p.notice");
    assertEquals(
      await admin.getAttribute("p.notice", "class"),
      "notice ok",
      (await admin.textContent("p.notice")) ?? "",
    );
    assert(
      (await admin.textContent("#live table"))!.includes(portalEn.state_stopped),
      "the table says the model is stopped",
    );
    await checked(admin, "admin-models-stopped", "en");
    await admin.click("form[action='/admin/models/demo/start'] button");
    await admin.waitForSelector("form[action='/admin/models/demo/stop']");
    assert(
      !(await admin.textContent("#live table"))!.includes(portalEn.state_stopped),
      "and started again",
    );
    // The row's actions sit on one line; the context is the one /v1/models reports.
    const tops = await admin.$$eval(
      "form[action^='/admin/models/demo/'].inline button",
      (bs) => bs.map((b) => Math.round(b.getBoundingClientRect().top)),
    );
    assert(tops.length >= 3 && Math.max(...tops) - Math.min(...tops) < 40, `one line: ${tops}`);
    const listed = (await (await fetch(`${app.url}/v1/models`, {
      headers: { authorization: `Bearer ${app.key}` },
    })).json()).data.find((m: { id: string }) => m.id === "demo");
    assert(listed?.context_length > 0, "/v1/models says the context");
    const contextCell = await admin.textContent("tbody.model td.num");
    assertEquals(contextCell, new Intl.NumberFormat("en").format(listed.context_length));
    await admin.click("header form.signout button");
    await admin.waitForURL(/\/(\?.*)?$/);
    await checked(admin, "signed-out-sign-in", "en");

    // ---- the member ----
    const bob = await newPage("en-US");
    await signIn(bob, "bob@acme.example", bobPassword);
    for (const p of ["/admin/people", "/admin/cluster", "/admin/audit", "/admin/tree"]) {
      const res = await bob.goto(`${app.url}${p}`);
      assertEquals(res?.status(), 404, `member: ${p}`);
    }
    assertEquals(await bob.locator("nav.admin").count(), 0, "no administration menu");
    for (const path of ["/usage", "/usage?scope=all"]) {
      const seen = await usageText(bob, path);
      assert(!seen.includes("rita-key") && !seen.includes("sdk-laptop"), `member: ${path}`);
    }

    // ---- every page, every role, both languages, both widths ----
    const people = (await api("GET", "/people")).data as { id: string; username: string }[];
    const idOf = (name: string) => people.find((p) => p.username === name)!.id;
    const staff = "a long enough password";
    await api("POST", "/people", { username: "olga", role: "operator", password: staff });
    await api("POST", "/people", {
      username: "tia",
      role: "tenant_admin",
      org_id: red.orgId,
      password: staff,
    });
    const again = (await api("GET", "/people")).data as { id: string; username: string }[];
    const keyOf = async (username: string) =>
      (await api("POST", "/keys", {
        name: `${username}-laptop`,
        person_id: again.find((p) => p.username === username)!.id,
      })).id as string;
    const limits = `/admin/limits/project/${redProject.id}`;
    const roles: {
      role: string;
      login: string;
      pw: string;
      extra: [string, string][];
    }[] = [
      {
        role: "admin",
        login: "admin",
        pw: password,
        extra: [
          ["/admin/models/demo", "model-page"],
          ["/admin/models/demo/remove", "model-remove"],
          [limits, "limits"],
          [`/keys/${await keyOf("admin")}/revoke`, "revoke"],
          ["/no-such-page", "not-found"],
        ],
      },
      {
        role: "operator",
        login: "olga",
        pw: staff,
        extra: [["/admin/models/demo", "model-page"], [limits, "limits"], [
          "/no-such-page",
          "not-found",
        ]],
      },
      {
        role: "tenant-admin",
        login: "tia",
        pw: staff,
        extra: [[limits, "limits"], [`/keys/${await keyOf("tia")}/revoke`, "revoke"], [
          "/no-such-page",
          "not-found",
        ]],
      },
      {
        role: "member",
        login: "bob@acme.example",
        pw: bobPassword,
        extra: [[`/keys/${await keyOf("bob")}/revoke`, "revoke"], ["/admin/people", "not-found"]],
      },
    ];
    assert(idOf("bob"), "bob is listed");
    for (const lang of ["en", "tr"] as const) {
      const anon = await newPage(lang === "tr" ? "tr-TR" : "en-US");
      await anon.goto(app.url);
      await checked(anon, "anon-sign-in", lang);
      const missing = await anon.goto(`${app.url}/no-such-page`);
      assertEquals(missing?.status(), 404);
      assert((missing?.headers()["content-type"] ?? "").startsWith("text/html"), "a page");
      await checked(anon, "anon-not-found", lang);
      for (const r of roles) {
        const page = await newPage(lang === "tr" ? "tr-TR" : "en-US");
        await signIn(page, r.login, r.pw);
        const links = await page.$$eval(
          "header.top nav a, nav.admin a",
          (as) => as.map((a) => a.getAttribute("href") ?? ""),
        );
        assertEquals(
          links.some((l) => l.startsWith("/admin/")),
          r.role !== "member",
          `${r.role}: the administration menu`,
        );
        const walk: [string, string][] = [
          ...links.map((l): [string, string] => [l, l.slice(1).replace(/\//g, "-")]),
          ...r.extra,
        ];
        for (const [path, name] of walk) {
          const res = await page.goto(`${app.url}${path}`);
          const status = res?.status() ?? 0;
          assert(status < 400 || name === "not-found", `${r.role} ${path}: ${status}`);
          if (path === "/chat") await chat(page, lang === "tr" ? "Merhaba" : "Hello");
          if (path === "/admin/models/demo") {
            const points = await page.getAttribute("svg[data-chart=model-rps]", "data-points");
            assert(Number(points) >= 1, `${r.role}: the model's requests in the last hour`);
            // The engine log: the sim engine's own line, from its node's agent; read again by
            // web/engine_log.js from the same fragment, with one polite status, not the lines.
            const log = await page.textContent("#engine-log pre.log");
            assert(log?.includes("sim-engine serving demo"), `${r.role}: the engine log: ${log}`);
            assertEquals(await page.getAttribute("#log-status", "role"), "status");
            assertEquals(await page.getAttribute("#engine-log pre.log", "aria-live"), null);
            const again = await page.evaluate(async () =>
              await (await fetch("/admin/models/demo?part=log")).text()
            );
            assert(again.includes("sim-engine serving demo"), "the log's fragment");
          }
          if (path === limits) {
            const cols = await page.locator("table.limits thead th").count();
            assertEquals(cols, 4, "own, inherited and in force beside the limit's name");
          }
          await checked(page, `${r.role}-${name}`, lang);
        }
      }
    }
    console.log(`portal screenshots: ${shots} in ${artifacts}`);
  } finally {
    for (const c of contexts) await c.close().catch(() => {});
    await browser.close();
    assertEquals(await app.stop(), 0);
  }
});
