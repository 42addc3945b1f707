/**
 * Hides what looks like a credential in a line an engine printed, beyond the secrets the agent
 * knows it gave the engine: an engine may echo its command line (`--api-key X`), a request's
 * `Authorization: Bearer X`, or a key someone pasted into a prompt it logs. The log tail is shown
 * to operators and travels over the node channel, so guessing wrong towards hiding is the safe way.
 */
const hidden = "[redacted]";

const secretWord = String.raw`(?:api[-_]?key|token(?!iz)|secret|password|passwd)`;

const patterns: readonly [RegExp, string][] = [
  // `Bearer X`, `Basic X` (an Authorization header echoed).
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{4,}/gi, `$1 ${hidden}`],
  // `--api-key X`, `--api-key=X`, `--hf-token "X"`: a flag whose name says secret, and its value.
  [
    new RegExp(
      String
        .raw`(?<![\w-])(--?[A-Za-z0-9_-]*${secretWord}[A-Za-z0-9_-]*)(=|\s+)("[^"]*"|'[^']*'|[^\s"']+)`,
      "gi",
    ),
    `$1$2${hidden}`,
  ],
  // `api_key: X`, `"password": "X"`, `HF_TOKEN=X` (settings and environments echoed). A bare
  // `token` counts only when the sign follows at once: llama.cpp prints `EOS token = 2`.
  [
    new RegExp(
      String
        .raw`\b([A-Za-z0-9_-]*(?:(?:api[-_]?key|secret|password|passwd)["']?\s*[:=]|token["']?[:=])\s*["']?)(?!\[redacted\])[^\s"',}]+`,
      "gi",
    ),
    `$1${hidden}`,
  ],
  // Keys in the shapes OpenAI-style gateways (llmgw's own `sk-llmgw-…`) and Hugging Face hand out.
  [/\b(?:sk-[A-Za-z0-9_-]{16,}|hf_[A-Za-z0-9]{20,})/g, hidden],
];

/** The line with each known secret and each credential-looking value replaced. */
export function redactLine(line: string, secrets: readonly string[]): string {
  let clean = line;
  for (const s of secrets) if (s) clean = clean.replaceAll(s, hidden);
  for (const [pattern, by] of patterns) clean = clean.replace(pattern, by);
  return clean;
}
