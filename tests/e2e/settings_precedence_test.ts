/**
 * The README's "a flag beats the environment, which beats the file, which beats the default",
 * with real `llmgw server` processes on one data folder: `listen` set in server.yaml, in
 * LLMGW_LISTEN and as --listen, each start dropping the strongest; where the server says it
 * listens, and answers /health, is the winner's port.
 */
import { assertEquals } from "../assert.ts";
import { spawnLlmgw } from "../helpers/llmgw_process.ts";

/** A loopback port free just now (bound, then let go). */
function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** Starts `llmgw server` on `data`, returns the port it says it listens on, and stops it. */
async function listenedPort(
  data: string,
  flags: string[],
  env: Record<string, string>,
): Promise<number> {
  const server = spawnLlmgw(
    [
      "server",
      "--data",
      data,
      "--cluster-listen",
      "127.0.0.1:0",
      "--metrics-listen",
      "",
      "--portal",
      "false",
      ...flags,
    ],
    env,
    "server",
  );
  try {
    const url = (await server.waitFor(/control plane on (http:\/\/\S+)/))[1]!;
    const health = await fetch(`${url}/health`);
    assertEquals(health.status, 200);
    await health.body?.cancel();
    return Number(new URL(url).port);
  } finally {
    assertEquals((await server.kill("SIGTERM")).code, 0, server.output());
  }
}

Deno.test({
  name: "settings: a flag beats the environment, which beats server.yaml, which beats the default",
  sanitizeResources: false,
}, async () => {
  const root = await Deno.makeTempDir({ prefix: "llmgw-precedence-" });
  const data = `${root}/data`;
  try {
    const init = spawnLlmgw(["init", "--data", data], {}, "init");
    assertEquals((await init.status).code, 0, init.output());
    const [fromFile, fromEnv, fromFlag] = [freePort(), freePort(), freePort()];
    const yaml = await Deno.readTextFile(`${data}/server.yaml`);
    const edited = yaml.replace(/^listen: .*$/m, `listen: "127.0.0.1:${fromFile}"`);
    assertEquals(edited !== yaml, true, "server.yaml has a listen line to change");
    await Deno.writeTextFile(`${data}/server.yaml`, edited);
    const env = { LLMGW_LISTEN: `127.0.0.1:${fromEnv}` };
    const flag = ["--listen", `127.0.0.1:${fromFlag}`];

    assertEquals(await listenedPort(data, flag, env), fromFlag, "the flag beats the environment");
    assertEquals(await listenedPort(data, [], env), fromEnv, "the environment beats the file");
    assertEquals(await listenedPort(data, [], {}), fromFile, "the file beats the default");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
