import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";

const main = new URL("../../main.ts", import.meta.url).pathname;

function spawn(args: string[], env: Record<string, string> = {}) {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", main, "sim-engine", ...args],
    env,
    stdout: "piped",
    stderr: "null",
  }).spawn();
}

Deno.test("the command prints its URL, serves, and exits 0 on SIGTERM", async () => {
  const child = spawn(["--port", "0", "--model", "cli-model"], { LLAMA_API_KEY: "k" });
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    out += value;
  }
  const first = out.split("\n")[0]!;
  const match = first.match(/^sim-engine listening on (http:\/\/127\.0\.0\.1:(\d+))$/);
  assert(match, `unexpected first line: ${first}`);
  assert(Number(match[2]) > 0);
  const health = await fetch(`${match[1]}/health`);
  assertEquals(await health.json(), { status: "ok" });
  const models = await fetch(`${match[1]}/v1/models`, { headers: { authorization: "Bearer k" } });
  assertEquals((await models.json()).data[0].id, "cli-model");
  child.kill("SIGTERM");
  assertEquals((await child.status).code, 0);
  await reader.cancel();
});

Deno.test("--help lists every option and bad flags exit 2", async () => {
  const help = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", main, "sim-engine", "--help"],
  }).output();
  assertEquals(help.code, 0);
  const text = new TextDecoder().decode(help.stdout);
  for (const flag of ["port", "host", "tokens-per-second", "model", "slots", "embedding-dims"]) {
    assert(text.includes(`--${flag} `), flag);
  }
  for (const bad of [["--nope"], ["--slots", "0"], ["extra"]]) {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", main, "sim-engine", ...bad],
    }).output();
    assertEquals(out.code, 2, bad.join(" "));
  }
});

Deno.test("--judge plays a guard model: the verdict the flags choose, after the delay they set", async () => {
  const child = spawn([
    "--port",
    "0",
    "--judge",
    "llama-guard-3",
    "--judge-unsafe",
    "bomb, heist",
    "--judge-delay-ms",
    "150",
  ]);
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    out += value;
  }
  const url = out.match(/listening on (\S+)/)?.[1];
  assert(url, out);
  const verdict = async (content: string) => {
    const t0 = performance.now();
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "g", messages: [{ role: "user", content }] }),
    });
    const body = await res.json();
    return [body.choices[0].message.content, performance.now() - t0] as const;
  };
  const [unsafe, ms] = await verdict("plan a Heist");
  assertEquals(unsafe, "unsafe\nS1");
  assert(ms >= 140, `${ms} ms`);
  assertEquals((await verdict("bake bread"))[0], "safe");
  child.kill("SIGTERM");
  assertEquals((await child.status).code, 0);
  await reader.cancel();
});
