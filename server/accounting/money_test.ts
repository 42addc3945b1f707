import { assert, assertEquals } from "../../tests/assert.ts";
import { startHarness } from "../../tests/helpers/harness.ts";
import { portalBrowser } from "../../tests/helpers/portal_browser.ts";
import { makeTenant } from "../../tests/helpers/tenants.ts";
import { runCommand } from "../../tests/helpers/control_plane.ts";
import { buildApp } from "../wiring/app.ts";
import { ctlCommand } from "../cli/ctl/mod.ts";
import { formatPrice, formatSpend, microsPer1kOf, priceDecimal, spendDecimal } from "./money.ts";

Deno.test("money: prices per 1M tokens and spend from the kept integers, exactly", () => {
  assertEquals(priceDecimal(150), "0.15");
  assertEquals(priceDecimal(2500), "2.50");
  assertEquals(priceDecimal(125), "0.125");
  assertEquals(priceDecimal(0), "0.00");
  assertEquals(spendDecimal(123), "0.000123");
  assertEquals(spendDecimal(1_500_000), "1.50");
  assertEquals(spendDecimal(-5), "-0.000005");
  // Past float precision: 2^53 - 1 micro-units, still every digit.
  assertEquals(spendDecimal(9007199254740991), "9007199254.740991");
  assertEquals(formatPrice(150, "USD"), "$0.15");
  assertEquals(formatSpend(123, "EUR"), "€0.000123");
  assertEquals(formatPrice(150, "USD", "tr"), "$0,15");
  assertEquals(microsPer1kOf("0.15"), 150);
  assertEquals(microsPer1kOf("2"), 2000);
  assertEquals(microsPer1kOf("0.1234"), undefined, "finer than is kept: refused, not rounded");
  assertEquals(microsPer1kOf("-1"), undefined);
});

Deno.test("money: the portal and ctl print the same figure for the same price and spend", async () => {
  const password = "correct horse battery staple";
  const h = await startHarness({ dialect: "sqlite" });
  const app = buildApp({ ...h.deps, portal: { publicUrl: "" } });
  await makeTenant(h, "acme");
  const { signIn, get, csrfOf } = portalBrowser(app, password);
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, app.fetch);
  const url = `http://127.0.0.1:${server.addr.port}`;
  const ctl = (...args: string[]) => runCommand(ctlCommand, args, url, h.adminToken);
  try {
    const set = await ctl(
      "prices",
      "set",
      "demo",
      "--prompt-per-1m",
      "0.15",
      "--completion-per-1m",
      "0.6",
    );
    assertEquals(set.code, 0, set.text);
    const kept = await (await h.admin("GET", "prices")).json();
    const demo = kept.data.find((p: { model: string }) => p.model === "demo").price;
    assertEquals([demo.promptPer1k, demo.completionPer1k], [150, 600], "kept as it always was");
    // The older form still sets the same figure.
    const old = await ctl("prices", "set", "demo", "--prompt", "150", "--completion", "600");
    assertEquals(old.code, 0, old.text);

    const mel = await signIn("mel@acme.example");
    const csrf = await csrfOf("/keys", mel);
    const chat = await app.request("/portal/chat", {
      method: "POST",
      headers: { cookie: mel, "content-type": "application/json", "x-csrf-token": csrf },
      body: JSON.stringify({ model: "demo", messages: [{ role: "user", content: "hi there" }] }),
    });
    assertEquals(chat.status, 200);
    await chat.text();
    await h.usage.flush();
    const rows = (await (await h.admin("GET", "usage")).json()).data;
    const micros = rows[0].costMicros as number;
    assert(micros > 0, "the request cost something");
    const spend = formatSpend(micros, "USD");

    const models = await (await get("/models", mel)).text();
    const listed = await ctl("prices", "list");
    for (const figure of ["$0.15", "$0.60"]) {
      assert(models.includes(`>${figure}<`), `the portal shows ${figure}`);
      assert(listed.text.includes(figure), `ctl shows ${figure}: ${listed.text}`);
    }
    const usagePage = await (await get("/usage", mel)).text();
    assert(usagePage.includes(`>${spend}<`), `the portal's usage shows ${spend}`);
    const usageList = await ctl("usage", "list");
    assert(usageList.text.includes(spend), `ctl usage list shows ${spend}: ${usageList.text}`);
    const summary = await ctl("usage");
    assert(summary.text.includes(spend), `ctl usage shows ${spend}: ${summary.text}`);
    const portalCsv = await (await get("/usage.csv", mel)).text();
    const ctlCsv = await ctl("usage", "--format", "csv");
    assert(portalCsv.split("\r\n")[0]!.endsWith(",cost_micros,cost_USD"), portalCsv);
    assert(portalCsv.includes(`,${micros},${spendDecimal(micros)}`), portalCsv);
    assert(ctlCsv.text.includes(`,${micros},${spendDecimal(micros)}`), ctlCsv.text);
  } finally {
    await server.shutdown();
    await h.close();
  }
});
