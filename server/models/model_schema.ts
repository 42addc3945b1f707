/**
 * The catalog's model definition: one zod schema for `server.yaml`'s `models:` list, `ctl model
 * add -f FILE` and the admin API. Keys are snake_case in YAML/JSON and camelCase in `ModelDef`.
 * Unknown keys are refused with their path (a typo such as `gpu:` for `gpus:` must not silently
 * run a model on the CPU). Parsing lives in model_yaml.ts; this file only declares.
 *
 * Rules beyond types: exactly one of `source` / `external`; a pickle source needs `allow_pickle`;
 * each profile's `args` pass its engine's flag gate (core/engines/engine_flag_rules.ts) and its
 * engine serves the model's capabilities (a chat model is refused on text-embeddings-inference);
 * `context_length` ≤ `trained_context`; `max_output` ≤ `context_length`; `scaling.min` ≤ `max`;
 * an on-demand model starts at 0 (its `scaling.min` must be 0); a model run here has ≥ 1
 * profile, an outside one none. An empty description is no description (absent, never "").
 */
import { z } from "zod";
import {
  type EngineName,
  engineNames,
  type EngineServes,
  engineTraits,
} from "../../core/engines/engine_traits.ts";
import { checkEngineFlags } from "../../core/engines/engine_flag_rules.ts";
import { UnsafeFlagError } from "../../core/engines/launch_plan_error.ts";
import { type JudgeFormatName, judgeFormatNames } from "../../core/judge_formats.ts";
import { isPickleName, type ModelSource, parseSource, sourceFileName } from "./model_source.ts";

export const capabilities = [
  "chat",
  "completions",
  "embeddings",
  "rerank",
  "vision",
  "tools",
] as const;
export type Capability = (typeof capabilities)[number];

/** What an engine must serve for each capability. */
const servedAs: Readonly<Record<Capability, EngineServes>> = {
  chat: "generate",
  completions: "generate",
  vision: "generate",
  tools: "generate",
  embeddings: "embedding",
  rerank: "rerank",
};
export const routingProfiles = ["chat", "batch", "long-context"] as const;
export type RoutingProfile = (typeof routingProfiles)[number];

const count = (max: number) => z.number().int().min(0).max(max);
const positive = (max: number) => z.number().int().min(1).max(max);
const micros = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

const profileSchema = z.strictObject({
  name: z.string().min(1).max(64).optional(),
  engine: z.enum(engineNames),
  args: z.array(z.string()).default([]),
  /** Cards of one node per replica; 0 runs on the CPU. */
  gpus: count(64).default(0),
  /** Host memory reserved per replica, in GB (filled from the estimate when absent). */
  memory_gb: z.number().positive().max(1_000_000).optional(),
  cores: positive(4096).optional(),
  node_selector: z.record(z.string().min(1), z.string()).default({}),
  gpu: z.strictObject({
    min_compute_capability: z.number().min(0).max(100).optional(),
    min_memory_gb: z.number().min(0).max(100_000).optional(),
  }).optional(),
  weight: z.number().positive().max(1_000_000).default(1),
  priority: z.number().int().min(-1000).max(1000).default(0),
});

const externalSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/ }),
  model: z.string().min(1),
  api_key_file: z.string().min(1).optional(),
  /** Several keys, as the original system took them: each its own endpoint and breaker. */
  api_key_files: z.array(z.strictObject({
    file: z.string().min(1),
    /** Share of requests relative to the other keys. */
    weight: z.number().positive().max(1_000_000).default(1),
  })).min(1).max(64).optional(),
  /**
   * The provider serves OpenAI's Responses API itself: /v1/responses requests for this model go
   * to it as they came (its own tools, conversation state and events), not translated to chat.
   */
  responses: z.boolean().default(false),
}).refine((e) => !(e.api_key_file && e.api_key_files), {
  message: "give api_key_file or api_key_files, not both",
  path: ["api_key_files"],
});

export const modelInputSchema = z.strictObject({
  name: z.string().regex(
    /^[A-Za-z0-9][\w.:/-]{0,127}$/,
    "letters, digits and . _ : / - only, starting with a letter or digit, at most 128",
  ),
  description: z.string().max(4000).optional(),
  aliases: z.array(z.string().regex(/^[A-Za-z0-9][\w.:/-]{0,127}$/)).default([]),
  /**
   * Aliases that also ground chat in knowledge bases: alias (one of `aliases`) → collection
   * names, each resolved among the calling key's own (so one alias serves every tenant's).
   */
  alias_knowledge_bases: z.record(z.string(), z.array(z.string().min(1).max(64)).min(1).max(8))
    .optional(),
  source: z.string().min(1).optional(),
  /** A URL source's sha256: the bytes every node fetches are checked against it. */
  sha256: z.string().regex(/^[0-9a-fA-F]{64}$/, "a sha256 is 64 hex digits").optional(),
  external: externalSchema.optional(),
  capabilities: z.array(z.enum(capabilities)).min(1).default(["chat", "completions"]),
  trained_context: positive(100_000_000).optional(),
  context_length: positive(100_000_000).optional(),
  /** Requests one replica serves at once; its KV cache holds context_length × slots tokens. */
  slots: positive(4096).optional(),
  max_output: positive(100_000_000).optional(),
  prices: z.strictObject({
    prompt_per_1k: micros.default(0),
    completion_per_1k: micros.default(0),
    cached_per_1k: micros.default(0),
    /** Each token of an answer given back by the answer cache. */
    cache_hit_per_1k: micros.default(0),
    /** The share of these prices a batch line pays; absent: the `batches.price_percent` setting. */
    batch_percent: z.number().int().min(0).max(100).optional(),
  }).optional(),
  scaling: z.strictObject({ min: count(1000), max: count(1000) }).optional(),
  on_demand: z.boolean().default(false),
  routing: z.enum(routingProfiles).optional(),
  fallbacks: z.array(z.string().min(1)).default([]),
  allow_pickle: z.boolean().default(false),
  profiles: z.array(profileSchema).default([]),
  /** The `judge` role: a guard model that guardrail policies ask, in its family's format. */
  judge: z.strictObject({ format: z.enum(judgeFormatNames) }).optional(),
}).superRefine((m, ctx) => {
  const bad = (path: (string | number)[], message: string) =>
    ctx.addIssue({ code: "custom", path, message });
  if (!m.source === !m.external) bad(["source"], "give exactly one of source or external");
  if (m.source) {
    try {
      const src = parseSource(m.source);
      const file = sourceFileName(src);
      if (file && isPickleName(file) && !m.allow_pickle) {
        bad(
          ["source"],
          `'${file}' is a pickle, which runs code when loaded; set allow_pickle: true only after checking the files`,
        );
      }
    } catch (e) {
      bad(["source"], (e as Error).message);
    }
  }
  if (m.sha256 && !/^https?:\/\//i.test(m.source ?? "")) {
    bad(["sha256"], "a sha256 is for a URL source (hf: sources are pinned by the hub's own sums)");
  }
  // The engines' own gate, here so that a refused flag (a key among them) is never stored.
  m.profiles.forEach((p, i) => {
    const traits = engineTraits[p.engine];
    const unserved = m.capabilities.filter((c) => !traits.serves.includes(servedAs[c]));
    if (unserved.length) {
      bad(
        ["profiles", i, "engine"],
        `${traits.label} does not serve ${unserved.join(", ")} (it serves ${
          traits.serves.join(", ")
        }); set capabilities to what the model is for`,
      );
    }
    try {
      checkEngineFlags(p.engine, p.args);
    } catch (e) {
      if (!(e instanceof UnsafeFlagError)) throw e;
      bad(["profiles", i, "args"], e.message);
    }
  });
  if (m.external && m.profiles.length) bad(["profiles"], "an external model has no profiles");
  if (m.source && !m.profiles.length) bad(["profiles"], "give at least one profile");
  if (m.trained_context && m.context_length && m.context_length > m.trained_context) {
    bad(
      ["context_length"],
      `${m.context_length} is longer than the trained context of ${m.trained_context}`,
    );
  }
  if (m.context_length && m.max_output && m.max_output > m.context_length) {
    bad(["max_output"], `${m.max_output} is more than the context length of ${m.context_length}`);
  }
  if (m.scaling && m.scaling.min > m.scaling.max) {
    bad(["scaling", "min"], `min ${m.scaling.min} is more than max ${m.scaling.max}`);
  }
  if (m.on_demand && m.scaling && m.scaling.min > 0) {
    bad(["scaling", "min"], "an on-demand model starts at 0 replicas: set min to 0");
  }
  if (m.aliases.includes(m.name)) bad(["aliases"], "an alias repeats the model's name");
  for (const a of Object.keys(m.alias_knowledge_bases ?? {})) {
    if (!m.aliases.includes(a)) {
      bad(["alias_knowledge_bases", a], `'${a}' is not one of the model's aliases`);
    }
  }
});

export type ModelInput = z.input<typeof modelInputSchema>;
type Parsed = z.output<typeof modelInputSchema>;

export interface ModelProfile {
  name?: string;
  engine: EngineName;
  args: string[];
  gpus: number;
  memoryGb?: number;
  cores?: number;
  nodeSelector: Record<string, string>;
  minComputeCapability?: number;
  minCardMemoryGb?: number;
  weight: number;
  priority: number;
}

export interface ModelDef {
  name: string;
  description?: string;
  aliases: string[];
  /** Alias → the knowledge bases a chat request through it is grounded in. */
  aliasKnowledgeBases?: Record<string, string[]>;
  /** The text as written; `parsedSource` is its parsed form. */
  source?: string;
  parsedSource?: ModelSource;
  /** A URL source's sha256 (lower-case hex). */
  sha256?: string;
  external?: {
    url: string;
    model: string;
    apiKeyFile?: string;
    apiKeyFiles?: { file: string; weight: number }[];
    /** It serves /v1/responses itself (requests go to it untranslated). */
    responses?: boolean;
  };
  capabilities: Capability[];
  trainedContext?: number;
  contextLength?: number;
  slots?: number;
  maxOutput?: number;
  prices: {
    promptPer1k: number;
    completionPer1k: number;
    cachedPer1k: number;
    cacheHitPer1k: number;
    batchPercent?: number;
  };
  scaling: { min: number; max: number };
  onDemand: boolean;
  routing?: RoutingProfile;
  fallbacks: string[];
  allowPickle: boolean;
  profiles: ModelProfile[];
  judge?: { format: JudgeFormatName };
}

/** Sets `key` only when `v` is defined, so absent stays absent under exactOptionalPropertyTypes. */
function opt<T extends object, K extends keyof T>(o: T, key: K, v: T[K] | undefined): void {
  if (v !== undefined) o[key] = v;
}

export function toModelDef(m: Parsed): ModelDef {
  const def: ModelDef = {
    name: m.name,
    aliases: m.aliases,
    ...(m.alias_knowledge_bases && Object.keys(m.alias_knowledge_bases).length
      ? { aliasKnowledgeBases: m.alias_knowledge_bases }
      : {}),
    capabilities: [...new Set(m.capabilities)],
    prices: {
      promptPer1k: m.prices?.prompt_per_1k ?? 0,
      completionPer1k: m.prices?.completion_per_1k ?? 0,
      cachedPer1k: m.prices?.cached_per_1k ?? 0,
      cacheHitPer1k: m.prices?.cache_hit_per_1k ?? 0,
      ...(m.prices?.batch_percent === undefined ? {} : { batchPercent: m.prices.batch_percent }),
    },
    scaling: m.scaling ?? (m.on_demand ? { min: 0, max: 1 } : { min: 1, max: 1 }),
    onDemand: m.on_demand,
    fallbacks: m.fallbacks,
    allowPickle: m.allow_pickle,
    profiles: m.profiles.map((p) => {
      const out: ModelProfile = {
        engine: p.engine,
        args: p.args,
        gpus: p.gpus,
        nodeSelector: p.node_selector,
        weight: p.weight,
        priority: p.priority,
      };
      opt(out, "name", p.name);
      opt(out, "memoryGb", p.memory_gb);
      opt(out, "cores", p.cores);
      opt(out, "minComputeCapability", p.gpu?.min_compute_capability);
      opt(out, "minCardMemoryGb", p.gpu?.min_memory_gb);
      return out;
    }),
  };
  opt(def, "description", m.description?.trim() || undefined);
  if (m.source) {
    def.source = m.source.trim();
    def.parsedSource = parseSource(m.source);
  }
  opt(def, "sha256", m.sha256?.toLowerCase());
  if (m.external) {
    def.external = { url: m.external.url, model: m.external.model };
    opt(def.external, "apiKeyFile", m.external.api_key_file);
    opt(def.external, "apiKeyFiles", m.external.api_key_files);
    if (m.external.responses) def.external.responses = true;
  }
  opt(def, "trainedContext", m.trained_context);
  opt(def, "contextLength", m.context_length);
  opt(def, "slots", m.slots);
  opt(def, "maxOutput", m.max_output);
  opt(def, "routing", m.routing);
  opt(def, "judge", m.judge);
  return def;
}
