/**
 * The shipped alert rules (deploy/monitoring/llmgw_alerts.yml) under Prometheus's own rule
 * evaluation, `promtool test rules` (Debian's `prometheus` package; .ci/run installs it): every
 * rule has cases in llmgw_alerts_test.yml, and the "model without a replica" alert fires on what a
 * real control plane exports for a catalog model that has none.
 */
import { assert, assertEquals } from "./assert.ts";
import { which } from "../core/which.ts";
import { startTestControlPlane } from "./helpers/control_plane.ts";

const promtool = await which("promtool");
const ignore = promtool === undefined;
const why = ignore ? " [ignored: promtool not installed (apt-get install prometheus)]" : "";
const dir = new URL("../deploy/monitoring/", import.meta.url).pathname;

async function run(args: string[], cwd = dir): Promise<{ ok: boolean; text: string }> {
  const out = await new Deno.Command(promtool!, { args, cwd, stdout: "piped", stderr: "piped" })
    .output();
  const d = new TextDecoder();
  return { ok: out.success, text: d.decode(out.stdout) + d.decode(out.stderr) };
}

Deno.test({
  name: "alert rules: every shipped rule is valid and has promtool cases that pass" + why,
  ignore,
  fn: async () => {
    const check = await run(["check", "rules", "llmgw_alerts.yml"]);
    assert(check.ok, check.text);
    const rules = await Deno.readTextFile(`${dir}/llmgw_alerts.yml`);
    const cases = await Deno.readTextFile(`${dir}/llmgw_alerts_test.yml`);
    const names = [...rules.matchAll(/^\s*- alert: (\w+)/gm)].map((m) => m[1]!);
    assert(names.length >= 6, names.join(", "));
    for (const n of names) {
      assert(cases.includes(`alertname: ${n}\n`), `${n} has cases in llmgw_alerts_test.yml`);
    }
    const test = await run(["test", "rules", "llmgw_alerts_test.yml"]);
    assert(test.ok, test.text);
  },
});

/** `name{labels} value` lines of a scrape whose name is one of `names`. */
function samples(scrape: string, names: string[]): { series: string; value: number }[] {
  return scrape.split("\n")
    .filter((l) => names.some((n) => l.startsWith(`${n}{`)))
    .map((l) => {
      const cut = l.lastIndexOf(" ");
      return { series: l.slice(0, cut), value: Number(l.slice(cut + 1)) };
    });
}

Deno.test({
  name: "alert rules: a catalog model with no replica fires LlmgwModelWithoutReplica" + why,
  ignore,
  fn: async () => {
    const t = await startTestControlPlane();
    const tmp = await Deno.makeTempDir({ prefix: "llmgw-alerts-" });
    try {
      for (
        const m of [
          { name: "lonely", source: "/models/lonely.gguf", profiles: [{ engine: "llamacpp" }] },
          {
            name: "lazy",
            source: "/models/lazy.gguf",
            on_demand: true,
            profiles: [{ engine: "llamacpp" }],
          },
        ]
      ) {
        const r = await t.admin("models", { method: "POST", body: JSON.stringify(m) });
        assertEquals(r.status, 201, await r.text());
      }
      const scrape = await (await fetch(t.cp.metricsUrl!)).text();
      const series = samples(scrape, ["llmgw_replicas", "llmgw_model_replicas_wanted"]);
      assert(
        series.some((s) => s.series === 'llmgw_replicas{model="lonely",state="ready"}'),
        `a zero series for the model with no replica:\n${series.map((s) => s.series).join("\n")}`,
      );
      // The scrape, held for ten minutes, under the shipped rule.
      const input = series.map((s) =>
        `      - series: '${s.series}'\n        values: "${s.value}x10"`
      ).join("\n");
      await Deno.writeTextFile(
        `${tmp}/scrape_test.yml`,
        `rule_files:\n  - ${dir}llmgw_alerts.yml\nevaluation_interval: 1m\ntests:\n` +
          `  - interval: 1m\n    input_series:\n${input}\n    alert_rule_test:\n` +
          `      - eval_time: 6m\n        alertname: LlmgwModelWithoutReplica\n` +
          `        exp_alerts:\n          - exp_labels: { model: lonely }\n` +
          `            exp_annotations: { summary: "model lonely has no ready replica" }\n`,
      );
      const test = await run(["test", "rules", "scrape_test.yml"], tmp);
      assert(test.ok, `${test.text}\n${input}`);
    } finally {
      await t.close();
      await Deno.remove(tmp, { recursive: true });
    }
  },
});
