/** Every cluster setting the settings page lists has its description in Turkish too. */
import { assert, assertEquals } from "../../tests/assert.ts";
import { serverSettings } from "../wiring/config.ts";
import { settingDescriptionsTr } from "../../locales/settings_tr.ts";

Deno.test("setting descriptions: every listed setting has a Turkish one, and no stale ones", () => {
  const listed = Object.values(serverSettings as Record<string, { key: string; secret?: boolean }>)
    .filter((d) => !d.secret).map((d) => d.key);
  const missing = listed.filter((k) => !settingDescriptionsTr[k]);
  assertEquals(missing, [], "add these to locales/settings_tr.ts");
  const stale = Object.keys(settingDescriptionsTr).filter((k) => !listed.includes(k));
  assertEquals(stale, [], "settings no longer listed");
  for (const k of listed) {
    const en = serverSettings as Record<string, { key: string; description: string }>;
    const d = Object.values(en).find((x) => x.key === k)!;
    assert(settingDescriptionsTr[k] !== d.description, `${k} is the English text`);
  }
});
