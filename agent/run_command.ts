/** Running a short-lived tool (nvidia-smi, `llama-server --version`) with a time limit. */

export interface CommandResult {
  readonly ok: boolean;
  /** stdout and stderr together: nvidia-smi prints its errors on stdout. */
  readonly output: string;
}

export type RunCommand = (cmd: string, args: string[]) => Promise<CommandResult>;

/** Time-boxed: nvidia-smi on a sick card can hang for minutes. */
export function runCommand(timeoutMs = 5_000): RunCommand {
  return async (cmd, args) => {
    try {
      const out = await new Deno.Command(cmd, {
        args,
        stdout: "piped",
        stderr: "piped",
        stdin: "null",
        signal: AbortSignal.timeout(timeoutMs),
      }).output();
      const dec = new TextDecoder();
      return { ok: out.success, output: dec.decode(out.stdout) + dec.decode(out.stderr) };
    } catch (e) {
      return { ok: false, output: e instanceof Error ? e.message : String(e) };
    }
  };
}
