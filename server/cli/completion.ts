/**
 * `llmgw completion bash|zsh`: a completion script generated from the same tables the commands
 * run from (main.ts's commands, ctl's nouns and verbs with each verb's flags, mirror's verbs), so
 * it cannot offer a verb that does not exist. zsh loads the bash function through bashcompinit.
 */
import type { Command } from "../../core/command.ts";
import { UsageError } from "../../core/command.ts";
import { didYouMean } from "../../core/suggest.ts";
import type { Noun } from "./ctl/client.ts";

export interface CompletionTables {
  commands: readonly string[];
  nouns: readonly Noun[];
  /** mirror's verbs, each with its flags. */
  mirror: Readonly<Record<string, readonly string[]>>;
}

/** The flags every ctl command takes. */
const ctlGlobal = ["--data", "--url", "--token", "--json", "--help"];

const words = (list: Iterable<string>) => [...list].join(" ");
const flagsOf = (names: Iterable<string>) => words([...names].map((f) => `--${f}`));

/** The bash completion function and its `complete` line. */
export function bashCompletion(t: CompletionTables): string {
  const verbCases = t.nouns.map((n) => `        ${n.name}) w="${words(Object.keys(n.verbs))}" ;;`);
  const flagCases = t.nouns.flatMap((n) => [
    ...Object.entries(n.verbs).map(([v, verb]) =>
      `        "${n.name}:${v}") w="${flagsOf(Object.keys(verb.flags ?? {}))}" ;;`
    ),
    ...(n.bare
      ? [`        "${n.name}:"*) w="${flagsOf(Object.keys(n.bare.flags ?? {}))}" ;;`]
      : []),
  ]);
  const mirrorFlags = Object.entries(t.mirror).map(([v, f]) =>
    `        ${v}) w="${flagsOf(f)}" ;;`
  );
  return `# llmgw completion for bash: source <(llmgw completion bash)
_llmgw() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" w=""
  if [[ $COMP_CWORD -eq 1 ]]; then
    COMPREPLY=($(compgen -W "${words(t.commands)} --help --version" -- "$cur"))
    return
  fi
  case "\${COMP_WORDS[1]}" in
  ctl)
    local noun="\${COMP_WORDS[2]}" verb="\${COMP_WORDS[3]}"
    if [[ $COMP_CWORD -eq 2 ]]; then
      COMPREPLY=($(compgen -W "${words(t.nouns.map((n) => n.name))} --help" -- "$cur"))
      return
    fi
    if [[ $COMP_CWORD -eq 3 && $cur != -* ]]; then
      case "$noun" in
${verbCases.join("\n")}
      esac
      [[ -n $w ]] && { COMPREPLY=($(compgen -W "$w" -- "$cur")); return; }
    fi
    if [[ $cur == -* ]]; then
      case "$noun:$verb" in
${flagCases.join("\n")}
      esac
      COMPREPLY=($(compgen -W "$w ${ctlGlobal.join(" ")}" -- "$cur"))
      return
    fi
    ;;
  mirror)
    if [[ $COMP_CWORD -eq 2 ]]; then
      COMPREPLY=($(compgen -W "${words(Object.keys(t.mirror))} --help" -- "$cur"))
      return
    fi
    if [[ $cur == -* ]]; then
      case "\${COMP_WORDS[2]}" in
${mirrorFlags.join("\n")}
      esac
      COMPREPLY=($(compgen -W "$w ${ctlGlobal.join(" ")}" -- "$cur"))
      return
    fi
    ;;
  completion)
    [[ $COMP_CWORD -eq 2 ]] && { COMPREPLY=($(compgen -W "bash zsh" -- "$cur")); return; }
    ;;
  esac
  COMPREPLY=()
}
complete -o default -F _llmgw llmgw
`;
}

/** zsh runs the same function through its bash completion layer. */
export function zshCompletion(t: CompletionTables): string {
  return `#compdef llmgw
# llmgw completion for zsh: source <(llmgw completion zsh)
autoload -U +X compinit && { (( $+functions[compdef] )) || compinit; }
autoload -U +X bashcompinit && bashcompinit
${bashCompletion(t).split("\n").slice(1).join("\n")}`;
}

export function completionCommand(tables: () => Promise<CompletionTables>): Command {
  return {
    name: "completion",
    summary: "Print a shell completion script (bash or zsh)",
    async run(argv) {
      const [shell] = argv;
      if (!shell || shell === "--help" || shell === "-h") {
        console.log(
          `Usage: llmgw completion bash|zsh\n\n` +
            `Prints a completion script for the shell, made from the commands' own tables.\n\n` +
            `Examples:\n` +
            `  source <(llmgw completion bash)                 # this shell\n` +
            `  llmgw completion bash > /etc/bash_completion.d/llmgw\n` +
            `  echo 'source <(llmgw completion zsh)' >> ~/.zshrc`,
        );
        return shell ? 0 : 2;
      }
      if (shell !== "bash" && shell !== "zsh") {
        throw new UsageError(
          `no completion for '${shell}'${didYouMean(shell, ["bash", "zsh"])} (bash or zsh)`,
        );
      }
      const t = await tables();
      console.log(shell === "bash" ? bashCompletion(t) : zshCompletion(t));
      return 0;
    },
  };
}
