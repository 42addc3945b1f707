/** The systemd units shipped in deploy/: each gives the process room for its connections. */
import { assert } from "./assert.ts";

Deno.test("every systemd unit in deploy/ sets LimitNOFILE", async () => {
  const dir = new URL("../deploy/systemd/", import.meta.url);
  let units = 0;
  for await (const e of Deno.readDir(dir)) {
    if (!e.name.endsWith(".service")) continue;
    units++;
    const text = await Deno.readTextFile(new URL(e.name, dir));
    assert(/^LimitNOFILE=\d+$/m.test(text), `${e.name} has no LimitNOFILE`);
  }
  assert(units >= 3, `only ${units} units found`);
});
