import { assert, assertEquals } from "../../../tests/assert.ts";
import { adminJson, startTestControlPlane } from "../../../tests/helpers/control_plane.ts";
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

Deno.test("ctl kb create, add (with progress to the end), status, search by a key, remove", async () => {
  const t = await startTestControlPlane();
  const dir = await Deno.makeTempDir();
  try {
    const base = ["--url", t.cp.url, "--token", t.adminToken];
    const admin = adminJson(t.cp.url, t.adminToken);
    const org = (await admin("POST", "orgs", { name: "acme" })).body;
    const team = (await admin("POST", "teams", { org_id: org.id, name: "core" })).body;
    const project = (await admin("POST", "projects", { team_id: team.id, name: "app" })).body;
    const made = await ctl([
      "kb",
      "create",
      "manuals",
      "--project",
      project.id,
      "--model",
      "demo",
      ...base,
    ]);
    assertEquals(made.code, 0, made.out);
    await Deno.writeTextFile(`${dir}/a.md`, "# Ovens\n\nPreheat the oven to 180 degrees.");
    await Deno.writeTextFile(`${dir}/b.html`, "<h1>Kettles</h1><p>Boil the kettle once.</p>");
    const added = await ctl(["kb", "add", "manuals", `${dir}/a.md`, `${dir}/b.html`, ...base]);
    assertEquals(added.code, 0, added.out);
    assert(added.out.includes("a.md: ready, 1/1 passages"), added.out);
    assert(added.out.includes("b.html: ready, 1/1 passages"), added.out);
    const status = await ctl(["kb", "status", "manuals", ...base]);
    assert(status.out.includes("2 documents, 2/2 passages embedded by demo"), status.out);
    const list = await ctl(["kb", "list", ...base]);
    assert(/manuals\s+\S+\s+\S+\s+demo\s+2\s+2\/2/.test(list.out), list.out);

    const key = await admin("POST", "keys", { name: "app key", project_id: project.id });
    const res = await fetch(`${t.cp.url}/v1/kb/manuals/search`, {
      method: "POST",
      headers: { authorization: `Bearer ${key.body.key}`, "content-type": "application/json" },
      body: JSON.stringify({ query: "preheat oven", mode: "keyword" }),
    });
    const page = await res.json();
    assertEquals(page.data[0].filename, "a.md");

    assertEquals((await ctl(["kb", "remove", "manuals", "a.md", ...base])).code, 0);
    const after = await ctl(["kb", "status", "manuals", ...base]);
    assert(after.out.includes("1 documents, 1/1 passages"), after.out);
    assertEquals((await ctl(["kb", "remove", "manuals", ...base])).code, 0);
    assertEquals((await ctl(["kb", "list", ...base])).out.includes("manuals"), false);
  } finally {
    await t.close();
    await Deno.remove(dir, { recursive: true });
  }
});
