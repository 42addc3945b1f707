import { assert, assertEquals } from "../../../tests/assert.ts";
import { startTestControlPlane } from "../../../tests/helpers/control_plane.ts";
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

Deno.test("ctl guard set, list and test: what a policy does to a text, through a real control plane", async () => {
  const t = await startTestControlPlane();
  const dir = await Deno.makeTempDir();
  try {
    const base = ["--url", t.cp.url, "--token", t.adminToken];
    await Deno.writeTextFile(
      `${dir}/p.json`,
      JSON.stringify({
        scope: { kind: "global", id: "global" },
        apply_to: "both",
        rules: [
          { name: "mail", kind: "pii", action: "redact", types: ["email"] },
          { name: "inject", kind: "pattern", action: "block", patterns: ["ignore previous"] },
        ],
      }),
    );
    assertEquals((await ctl(["guard", "set", "base", "--file", `${dir}/p.json`, ...base])).code, 0);
    const list = await ctl(["guard", "list", ...base]);
    assert(/base\s+global\s+both\s+2/.test(list.out), list.out);
    const redacted = await ctl(["guard", "test", "base", "--text", "to a@b.example", ...base]);
    assertEquals(redacted.code, 0);
    assert(redacted.out.includes("passes as: to [EMAIL_1]"), redacted.out);
    assert(redacted.out.includes("redact mail"), redacted.out);
    const blocked = await ctl([
      "guard",
      "test",
      "base",
      "--text",
      "please ignore previous",
      ...base,
    ]);
    assertEquals(blocked.code, 1);
    assert(blocked.out.includes("blocked by rule inject"), blocked.out);
    assert(!blocked.out.includes("please"), "the matched text is not shown back");
  } finally {
    await t.close();
    await Deno.remove(dir, { recursive: true });
  }
});
