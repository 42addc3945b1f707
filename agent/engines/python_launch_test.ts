/**
 * The Python launchers run by a real interpreter against stand-in packages (an `sglang` whose
 * launch_server reports what it was given, a `uvicorn` and `tensorrt_llm` that drive the ASGI app
 * trtllm-serve would serve): the key reaches the engine, never the process's argv.
 */
import { assert, assertEquals } from "../../tests/assert.ts";
import { which } from "../../core/which.ts";
import { sglangKeyEnv, sglangLauncher, trtllmKeyEnv, trtllmLauncher } from "./python_launch.ts";

const python = await which("python3");
const skip = python ? "" : "python3 is not on PATH";
const key = "sk-llmgw-launcher-secret";

async function runPython(
  code: string,
  args: string[],
  env: Record<string, string>,
  files: Record<string, string>,
) {
  const dir = await Deno.makeTempDir({ prefix: "llmgw-pylaunch-" });
  try {
    for (const [path, text] of Object.entries(files)) {
      await Deno.mkdir(`${dir}/${path}`.replace(/\/[^/]+$/, ""), { recursive: true });
      await Deno.writeTextFile(`${dir}/${path}`, text);
    }
    const out = await new Deno.Command(python!, {
      args: ["-c", code, ...args],
      env: { PATH: "/usr/bin:/bin", PYTHONPATH: dir, ...env },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assertEquals(out.code, 0, stderr);
    return JSON.parse(new TextDecoder().decode(out.stdout)) as Record<string, unknown>;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const cmdline = "open('/proc/self/cmdline', 'rb').read().decode().replace('\\0', ' ')";

Deno.test({
  name: `the SGLang launcher gives launch_server --api-key from the environment, not argv${
    skip ? ` (skipped: ${skip})` : ""
  }`,
  ignore: !!skip,
}, async () => {
  const seen = await runPython(sglangLauncher, ["--model-path", "/w/m", "--port", "30001"], {
    [sglangKeyEnv]: key,
  }, {
    "sglang/__init__.py": "",
    "sglang/launch_server.py": [
      "import json, os, sys",
      "if __name__ == '__main__':",
      `    print(json.dumps({"argv": sys.argv[1:], "env": "${sglangKeyEnv}" in os.environ, "cmdline": ${cmdline}}))`,
    ].join("\n"),
  });
  assertEquals(seen.argv, ["--model-path", "/w/m", "--port", "30001", "--api-key", key]);
  assertEquals(seen.env, false, "the key is taken out of the environment its workers inherit");
  assert(!String(seen.cmdline).includes(key), String(seen.cmdline));
});

Deno.test({
  name: `the TensorRT-LLM launcher answers 401 without the key and lets /health through${
    skip ? ` (skipped: ${skip})` : ""
  }`,
  ignore: !!skip,
}, async () => {
  const seen = await runPython(
    trtllmLauncher,
    ["/w/m", "--port", "30002"],
    { [trtllmKeyEnv]: key },
    {
      "uvicorn.py": [
        "class Config:",
        "    def __init__(self, app, host=None, port=None, **kwargs):",
        "        self.app = app",
      ].join("\n"),
      "tensorrt_llm/__init__.py": "",
      "tensorrt_llm/commands/__init__.py": "",
      "tensorrt_llm/commands/serve.py": [
        "import asyncio, json, os, sys",
        "import uvicorn",
        "async def app(scope, receive, send):",
        '    await send({"type": "http.response.start", "status": 200, "headers": []})',
        '    await send({"type": "http.response.body", "body": b"ok"})',
        "async def call(app, path, headers):",
        "    sent = []",
        "    async def send(m): sent.append(m)",
        "    async def receive(): return {'type': 'http.request'}",
        '    await app({"type": "http", "path": path, "headers": headers}, receive, send)',
        '    return sent[0]["status"]',
        "def main():",
        "    config = uvicorn.Config(app, host='127.0.0.1', port=1)",
        `    bad = [(b'authorization', b'Bearer nope')]`,
        "    statuses = {",
        "        'none': asyncio.run(call(config.app, '/v1/models', [])),",
        "        'wrong': asyncio.run(call(config.app, '/v1/models', bad)),",
        `        'right': asyncio.run(call(config.app, '/v1/models', [(b'authorization', b'Bearer ${key}')])),`,
        "        'health': asyncio.run(call(config.app, '/health', [])),",
        "    }",
        `    print(json.dumps({"argv": sys.argv, "statuses": statuses, "env": "${trtllmKeyEnv}" in os.environ, "cmdline": ${cmdline}}))`,
        "    return 0",
      ].join("\n"),
    },
  );
  assertEquals(seen.argv, ["trtllm-serve", "/w/m", "--port", "30002"]);
  assertEquals(seen.statuses, { none: 401, wrong: 401, right: 200, health: 200 });
  assertEquals(seen.env, false);
  assert(!String(seen.cmdline).includes(key));
});
