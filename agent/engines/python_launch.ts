/**
 * Python engines that take their key only as a flag (SGLang's `--api-key`) or not at all
 * (`trtllm-serve`), started so that the key is never in argv: `python -c` runs a few lines that
 * read it from the environment. What `/proc/PID/cmdline` shows is what was exec'd; a list changed
 * inside the interpreter afterwards is not.
 */

/** The environment variable the SGLang launcher reads the key from (SGLang itself reads none). */
export const sglangKeyEnv = "SGLANG_API_KEY";

/** The environment variable the TensorRT-LLM launcher reads the key from. */
export const trtllmKeyEnv = "TRTLLM_API_KEY";

/**
 * `python -m sglang.launch_server ARGS --api-key KEY`, the key taken from the environment (and
 * removed from it, so SGLang's workers do not inherit it).
 */
export const sglangLauncher = [
  "import os, runpy, sys",
  `key = os.environ.pop("${sglangKeyEnv}")`,
  'sys.argv = ["sglang.launch_server", *sys.argv[1:], "--api-key", key]',
  'runpy.run_module("sglang.launch_server", run_name="__main__", alter_sys=True)',
].join("\n");

/**
 * `trtllm-serve ARGS` behind a bearer-key check: trtllm-serve has no key of its own, so every
 * ASGI app handed to uvicorn (it builds its server with `uvicorn.Config(app, ...)`) is wrapped
 * in a guard that answers 401 unless `Authorization: Bearer KEY`. `/health` stays open, as it is
 * on llama-server. An app given by name cannot be wrapped, so the launcher stops rather than
 * serve without the key.
 */
export const trtllmLauncher = [
  "import hmac, os, sys",
  "import uvicorn",
  `_key = ("Bearer " + os.environ.pop("${trtllmKeyEnv}")).encode()`,
  "def _guard(app):",
  "    async def guarded(scope, receive, send):",
  '        if scope["type"] in ("http", "websocket") and scope.get("path") != "/health":',
  '            given = dict(scope.get("headers") or []).get(b"authorization", b"")',
  "            if not hmac.compare_digest(given, _key):",
  '                if scope["type"] == "websocket":',
  '                    await send({"type": "websocket.close", "code": 1008})',
  "                    return",
  '                await send({"type": "http.response.start", "status": 401,',
  '                            "headers": [(b"content-type", b"application/json")]})',
  '                await send({"type": "http.response.body",',
  '                            "body": b\'{"error":{"message":"invalid api key","type":"authentication_error"}}\'})',
  "                return",
  "        await app(scope, receive, send)",
  "    return guarded",
  "_init = uvicorn.Config.__init__",
  "def _config(self, app, *args, **kwargs):",
  "    if not callable(app):",
  '        raise SystemExit("llmgw: uvicorn was given an app by name; its key cannot be checked")',
  "    _init(self, _guard(app), *args, **kwargs)",
  "uvicorn.Config.__init__ = _config",
  'sys.argv = ["trtllm-serve", *sys.argv[1:]]',
  "from tensorrt_llm.commands.serve import main",
  "sys.exit(main())",
].join("\n");

/** `python -c "import PKG; print(PKG.__version__)"`: the version, or an import error. */
export function pythonVersionArgs(pkg: string): string[] {
  return ["-c", `import ${pkg}; print(${pkg}.__version__)`];
}
