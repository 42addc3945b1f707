/**
 * The command line as a person meets it, through real child processes: a mistyped command gets
 * one line naming the nearest, every command's --help ends in examples, and `llmgw completion
 * bash` (sourced into a real bash) completes commands, ctl areas, verbs and each verb's flags
 * from the same tables the commands run from; `llmgw completion zsh` passes `zsh -n` and, loaded
 * into an interactive zsh on a pseudo-terminal (zsh/zpty), completes a verb and a flag at Tab.
 */
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { selfCommand, selfCommandEnv } from "../core/self_command.ts";
import { main } from "../main.ts";

const env = () => ({ ...selfCommandEnv(), PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" });

async function llmgw(...args: string[]) {
  const { cmd, args: full } = selfCommand(args);
  const out = await new Deno.Command(cmd, { args: full, clearEnv: true, env: env() }).output();
  const d = new TextDecoder();
  return { code: out.code, stdout: d.decode(out.stdout), stderr: d.decode(out.stderr) };
}

Deno.test("a mistyped command, area, verb or flag: one line with 'did you mean'", async () => {
  const cases: [string[], string][] = [
    [
      ["ctll"],
      "llmgw: unknown command 'ctll'; did you mean 'llmgw ctl'? (llmgw --help lists them)",
    ],
    [["ctl", "kyes"], "llmgw ctl: unknown area 'ctl kyes'; did you mean 'ctl keys'?"],
    [
      ["ctl", "keys", "creat"],
      "llmgw ctl: unknown verb 'ctl keys creat'; did you mean 'ctl keys create'?",
    ],
    [
      ["ctl", "keys", "create", "--nmae", "x"],
      "llmgw ctl: unknown flag '--nmae'; did you mean '--name'?",
    ],
    [["mirror", "lst"], "llmgw mirror: unknown verb 'mirror lst'; did you mean 'mirror list'?"],
    [
      ["ctl", "keys", "create", "--name", "x", "--expires-in", "3"],
      "llmgw ctl: --expires-in 3: give a number and a unit: d (days), h (hours), m (minutes), " +
      "s (seconds) or ms",
    ],
  ];
  const conn = ["--url", "http://127.0.0.1:9", "--token", "t"];
  for (const [args, said] of cases) {
    const r = await llmgw(...args, ...conn);
    assertEquals(r.code, 2, args.join(" "));
    assertEquals(r.stderr.trimEnd().split("\n").length, 1, `one line, not the tree:\n${r.stderr}`);
    assert(r.stderr.startsWith(said), `${args.join(" ")}:\n${r.stderr}`);
  }
});

Deno.test("every command's own --help ends in examples", async () => {
  const names = [
    "up",
    "init",
    "server",
    "join",
    "agent",
    "doctor",
    "mirror",
    "bench",
    "sim-engine",
    "restore",
    "store",
    "version",
    "completion",
  ];
  const printed: string[] = [];
  const log = console.log;
  console.log = (...a: unknown[]) => void printed.push(a.join(" "));
  try {
    for (const name of names) {
      printed.length = 0;
      assertEquals(await main([name, "--help"]), 0, name);
      const text = printed.join("\n");
      assertMatch(text, new RegExp(`\\nExamples:\\n {2}(source <\\()?llmgw ${name}`), name);
    }
    printed.length = 0;
    assertEquals(await main(["ctl", "keys", "create", "--help"]), 0);
    assertMatch(printed.join("\n"), /Examples:\n {2}llmgw ctl keys create --name ci/);
  } finally {
    console.log = log;
  }
});

Deno.test("bash completion from the verb tables: commands, areas, verbs, a verb's flags", async () => {
  const bin = await Deno.makeTempDir({ prefix: "llmgw-completion-" });
  try {
    const { cmd, args } = selfCommand([]);
    await Deno.writeTextFile(
      `${bin}/llmgw`,
      `#!/bin/sh\nexec ${[cmd, ...args].map((a) => `'${a}'`).join(" ")} "$@"\n`,
      { mode: 0o755 },
    );
    const complete = (line: string) => {
      const words = line.split(" ");
      return `COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${
        words.length - 1
      }; _llmgw; echo "${line}=> \${COMPREPLY[*]}"`;
    };
    const script = [
      "source <(llmgw completion bash)",
      "complete -p llmgw",
      complete("llmgw ct"),
      complete("llmgw ctl ke"),
      complete("llmgw ctl keys "),
      complete("llmgw ctl keys create --exp"),
      complete("llmgw ctl usage --fo"),
      complete("llmgw ctl nodes uncordon --js"),
      complete("llmgw mirror add --wa"),
      complete("llmgw completion "),
      // compgen with the same words the function offers
      `compgen -W "$(llmgw completion bash | grep -o 'create list revoke')" -- re`,
    ].join("\n");
    const out = await new Deno.Command("bash", {
      args: ["-c", script],
      clearEnv: true,
      env: { ...env(), PATH: `${bin}:${env().PATH}` },
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
    const lines = text.trimEnd().split("\n");
    assertEquals(lines, [
      "complete -o default -F _llmgw llmgw",
      "llmgw ct=> ctl",
      "llmgw ctl ke=> keys",
      "llmgw ctl keys => create list revoke",
      "llmgw ctl keys create --exp=> --expires-at --expires-in",
      "llmgw ctl usage --fo=> --format",
      "llmgw ctl nodes uncordon --js=> --json",
      "llmgw mirror add --wa=> --wait",
      "llmgw completion => bash zsh",
      "revoke",
    ]);
  } finally {
    await Deno.remove(bin, { recursive: true });
  }
});

const noZsh = (await new Deno.Command("sh", { args: ["-c", "command -v zsh"] }).output()).success
  ? undefined
  : "zsh is not installed here";

/** The zpty driver: see the file's own comment. */
const zptyDriver = new URL("./helpers/zpty_complete.zsh", import.meta.url).pathname;

Deno.test({
  name: "zsh completion: the script parses (zsh -n) and completes a verb and a flag at Tab" +
    (noZsh ? ` (ignored: ${noZsh})` : ""),
  ignore: !!noZsh,
}, async () => {
  const dir = await Deno.makeTempDir({ prefix: "llmgw-zsh-" });
  try {
    const made = await llmgw("completion", "zsh");
    assertEquals(made.code, 0, made.stderr);
    await Deno.writeTextFile(`${dir}/llmgw.zsh`, made.stdout);
    const parsed = await new Deno.Command("zsh", { args: ["-n", `${dir}/llmgw.zsh`] }).output();
    assertEquals(parsed.code, 0, new TextDecoder().decode(parsed.stderr));
    const lines = [
      "llmgw ct",
      "llmgw ctl ke",
      "llmgw ctl model lo",
      "llmgw ctl usage --fo",
      "llmgw ctl keys create --exp",
    ];
    const driven = await new Deno.Command("zsh", {
      args: ["-f", zptyDriver, `${dir}/out`, `${dir}/llmgw.zsh`, ...lines],
      env: env(),
      clearEnv: true,
    }).output();
    assertEquals(driven.code, 0, new TextDecoder().decode(driven.stderr));
    const got = (await Deno.readTextFile(`${dir}/out`)).trimEnd().split("\n");
    assertEquals(got, [
      "READY",
      "[llmgw ctl ]",
      "[llmgw ctl keys ]",
      "[llmgw ctl model logs ]",
      "[llmgw ctl usage --format ]",
      // Two flags begin so: Tab puts their common part on the line, as zsh does.
      "[llmgw ctl keys create --expires-]",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
