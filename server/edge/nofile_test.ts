/** Raising the soft open-file limit through libc, in a child process whose limit was lowered. */
import { assertEquals } from "../../tests/assert.ts";

Deno.test({
  name: "raiseNofileLimit: a soft limit below the hard one is raised to it",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const code = `
      import { raiseNofileLimit } from ${
      JSON.stringify(new URL("./nofile.ts", import.meta.url).href)
    };
      const lib = Deno.dlopen("libc.so.6", { setrlimit: { parameters: ["i32", "buffer"], result: "i32" } });
      const hard = raiseNofileLimit().hard;
      // Deno raises its own soft limit at start: lowered again here, for raiseNofileLimit to raise.
      lib.symbols.setrlimit(7, new Uint8Array(new BigUint64Array([300n, BigInt(hard)]).buffer));
      const raised = raiseNofileLimit();
      const line = (await Deno.readTextFile("/proc/self/limits")).split("\\n").find((l) => l.includes("open files"));
      console.log(JSON.stringify({ raised, line: line.split(/\\s{2,}/).slice(1, 3) }));
    `;
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["eval", code],
      stdout: "piped",
      stderr: "inherit",
    }).output();
    assertEquals(out.code, 0);
    const { raised, line } = JSON.parse(new TextDecoder().decode(out.stdout));
    assertEquals(raised.raisedFrom, 300);
    assertEquals(raised.soft, Math.min(raised.hard, 1_048_576));
    assertEquals(line, [String(raised.soft), String(raised.hard)]);
  },
});
