/**
 * The portal in a real browser (Debian's Chromium driven by playwright-core) against a real
 * `llmgw up`: the administrator signs in, sees the demo model with its description, chats and
 * reads a streamed answer, makes a key and uses it with the OpenAI SDK, sees that request in the
 * usage chart, makes a team and a member; the member cannot open administration pages or see the
 * other team's usage; the same walk in Turkish shows no English message. Every page passes the
 * in-page accessibility check (labels, names, contrast). Screenshots go to tests/artifacts/portal/
 * (or $LLMGW_ARTIFACTS). Skips, saying why, where /usr/bin/chromium is not installed.
 */
import { type BrowserContext, chromium, type Page } from "playwright-core";
import OpenAI from "openai";
import { assert, assertEquals } from "../assert.ts";
import { a11yCheck } from "../helpers/a11y.ts";
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
  const newPage = async (locale: string) => {
    const ctx = await browser.newContext({ locale, viewport: { width: 1200, height: 800 } });
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

  const checked = async (page: Page, name: string, lang: "en" | "tr") => {
    assertEquals(await page.getAttribute("html", "lang"), lang, `${name}: <html lang>`);
    const problems = await page.evaluate(a11yCheck) as string[];
    assertEquals(problems, [], `${name}: accessibility`);
    if (lang === "tr") {
      // Model output, code, the catalog's descriptions and the server's own texts (setting
      // descriptions, a replica's reason, a plan's refusals: class "data") are not the portal's words.
      const text = await page.evaluate(`(() => {
        const body = document.body.cloneNode(true);
        body.querySelectorAll("script, style, pre, .mono, .data, .msg .body, tr.desc span")
          .forEach((e) => e.remove());
        return body.textContent;
      })()`) as string;
      const english = englishRe.filter(({ re }) => re.test(text)).map(({ f }) => f);
      assertEquals(english, [], `${name}: English on a Turkish page`);
    }
    await page.screenshot({ path: `${artifacts}/${lang}-${name}.png`, fullPage: true });
  };
  const signIn = async (page: Page, login: string, pw: string) => {
    await page.goto(app.url);
    await page.fill("#login", login);
    await page.fill("#password", pw);
    await Promise.all([page.waitForURL(/\/models$/), page.click("form[action='/login'] button")]);
  };
  const chat = async (page: Page, text: string) => {
    await page.goto(`${app.url}/chat`);
    await page.fill("#chat-input", text);
    await page.click("#chat-send");
    await page.waitForFunction(`!document.getElementById("chat-send").disabled &&
      /\\d/.test(document.getElementById("chat-status").textContent)`);
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
    await checked(admin, "models", "en");

    await chat(admin, "Hello there, **who** are you?");
    assert(/tokens\/s/.test(await admin.textContent("#chat-status") ?? ""), "count and speed");
    await checked(admin, "chat", "en");
    await admin.reload();
    assertEquals(await admin.locator(".msg").count(), 2, "the conversation is kept");

    await admin.goto(`${app.url}/keys`);
    await admin.fill("#key-name", "sdk-laptop");
    await admin.click("form[action='/keys'] button[type=submit]");
    const key = await admin.inputValue("#new-key");
    assert(key.startsWith("sk-llmgw-"), "the key is shown");
    await checked(admin, "keys", "en");
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
    await checked(admin, "usage", "en");

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
    await checked(admin, "tree", "en");
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
    await checked(admin, "people", "en");
    for (const p of ["cluster", "models", "keys", "audit", "settings"]) {
      await admin.goto(`${app.url}/admin/${p}`);
      await checked(admin, `admin-${p}`, "en");
    }
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
    await admin.goto(`${app.url}/profile`);
    await checked(admin, "profile", "en");
    await admin.click("header form.signout button");
    await admin.waitForURL(/\/(\?.*)?$/);
    await checked(admin, "sign-in", "en");

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
    await checked(bob, "member-usage", "en");

    // ---- the same walk in Turkish ----
    const tr = await newPage("tr-TR");
    await tr.goto(app.url);
    await checked(tr, "sign-in", "tr");
    await signIn(tr, "admin", password);
    await checked(tr, "models", "tr");
    await chat(tr, "Merhaba");
    await checked(tr, "chat", "tr");
    for (const p of ["/keys", "/usage", "/profile"]) {
      await tr.goto(`${app.url}${p}`);
      await checked(tr, p.slice(1), "tr");
    }
    for (const p of ["cluster", "models", "people", "tree", "keys", "audit", "settings"]) {
      await tr.goto(`${app.url}/admin/${p}`);
      await checked(tr, `admin-${p}`, "tr");
    }
    const trBob = await newPage("tr-TR");
    await signIn(trBob, "bob@acme.example", bobPassword);
    await checked(trBob, "member-models", "tr");
    const missing = await trBob.goto(`${app.url}/admin/people`);
    assertEquals(missing?.status(), 404);
    await checked(trBob, "member-not-found", "tr");
  } finally {
    for (const c of contexts) await c.close().catch(() => {});
    await browser.close();
    assertEquals(await app.stop(), 0);
  }
});
