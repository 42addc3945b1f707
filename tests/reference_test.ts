/**
 * docs/reference.md is what scripts/reference.ts writes from the settings' definitions: a key
 * added, removed or changed without `deno task docs:reference` fails here.
 */
import { assert, assertEquals } from "./assert.ts";
import {
  metricsPath,
  referencePath,
  renderMetrics,
  renderReference,
  sections,
} from "../scripts/reference.ts";

Deno.test("docs/reference.md is up to date with every setting", async () => {
  const expected = renderReference();
  let actual = "";
  try {
    actual = await Deno.readTextFile(referencePath);
  } catch {
    // Missing counts as out of date.
  }
  assert(
    actual === expected,
    "docs/reference.md is out of date: run `deno task docs:reference` and commit the result",
  );
  for (const s of sections) {
    for (const d of Object.values(s.defs)) {
      assert(d.description.trim().length > 10, `${d.key} has a real description`);
      assert(expected.includes(`\`${d.key}\``), `${d.key} is in the reference`);
    }
  }
});

Deno.test("docs/metrics.md lists every metric the control plane serves", async () => {
  const actual = await Deno.readTextFile(metricsPath).catch(() => "");
  assert(
    actual === renderMetrics(),
    "docs/metrics.md is out of date: run `deno task docs:reference` and commit the result",
  );
});

Deno.test("the reference check notices an undocumented key", () => {
  const before = renderReference();
  const defs = sections[0]!.defs as Record<string, unknown>;
  defs.__probe = { ...sections[0]!.defs.listen!, key: "probe.added_key" };
  try {
    const after = renderReference();
    assert(after !== before && after.includes("probe.added_key"));
  } finally {
    delete defs.__probe;
  }
  assertEquals(renderReference(), before);
});
