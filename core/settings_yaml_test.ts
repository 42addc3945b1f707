/** The YAML `init` writes reads back as every setting it lists, a key three parts deep included. */
import { assertEquals } from "../tests/assert.ts";
import { defaultYaml, fromFile, text } from "./settings.ts";

Deno.test("defaultYaml: every key, auth.ldap.urls too, reads back from the file it writes", () => {
  const defs = {
    top: text("log_level", "info", "A top-level key"),
    two: text("auth.mode", "a", "Two parts"),
    three: text("auth.ldap.urls", "", "Three parts"),
  };
  const yaml = defaultYaml(defs);
  assertEquals(
    fromFile(defs, { path: "server.yaml", text: yaml }),
    new Set(["top", "two", "three"]),
  );
});
