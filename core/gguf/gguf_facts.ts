/**
 * What the catalog needs from a GGUF header, by name: `ggufFacts(header, fileSize)` →
 * architecture, trained context, layers, heads, KV heads, head width, embedding width, pooling,
 * file type, experts, tensor data bytes and file size. Pure; missing keys are left out, never 0
 * ("zero or empty means not reported").
 */
import { type GgufHeader, type GgufValue } from "./gguf_parse.ts";

export type Pooling = "none" | "mean" | "cls" | "last" | "rank";

export interface GgufFacts {
  architecture: string;
  name?: string;
  trainedContext?: number;
  layers?: number;
  heads?: number;
  /** Key/value heads (grouped-query attention); equals `heads` when the file does not say. */
  kvHeads?: number;
  /** Width of one head's key (and value) vector. */
  headDim?: number;
  embeddingWidth?: number;
  pooling?: Pooling;
  /** llama.cpp's file type name (`Q4_K_M`, `F16`, …), or `type N` for one this list lacks. */
  fileType?: string;
  experts?: number;
  tensorCount: number;
  /** Where tensor data starts in the file. */
  dataOffset: number;
  /** Bytes of tensor data (the weights), known when the file's size is. */
  tensorBytes?: number;
  fileSize?: number;
}

const fileTypes: Record<number, string> = {
  0: "F32",
  1: "F16",
  2: "Q4_0",
  3: "Q4_1",
  7: "Q8_0",
  8: "Q5_0",
  9: "Q5_1",
  10: "Q2_K",
  11: "Q3_K_S",
  12: "Q3_K_M",
  13: "Q3_K_L",
  14: "Q4_K_S",
  15: "Q4_K_M",
  16: "Q5_K_S",
  17: "Q5_K_M",
  18: "Q6_K",
  19: "IQ2_XXS",
  20: "IQ2_XS",
  21: "Q2_K_S",
  22: "IQ3_XS",
  23: "IQ3_XXS",
  24: "IQ1_S",
  25: "IQ4_NL",
  26: "IQ3_S",
  27: "IQ3_M",
  28: "IQ2_S",
  29: "IQ2_M",
  30: "IQ4_XS",
  31: "IQ1_M",
  32: "BF16",
  36: "TQ1_0",
  37: "TQ2_0",
  38: "MXFP4_MOE",
};

const poolings: Pooling[] = ["none", "mean", "cls", "last", "rank"];

/** A positive whole number, or the largest of a per-layer array (some architectures vary heads). */
function count(v: GgufValue | undefined): number | undefined {
  if (typeof v === "number") return Number.isInteger(v) && v > 0 ? v : undefined;
  if (typeof v === "bigint") return undefined;
  if (v && typeof v === "object" && v.values) {
    const nums = v.values.filter((x): x is number => typeof x === "number" && x > 0);
    return nums.length ? Math.max(...nums) : undefined;
  }
  return undefined;
}

export function ggufFacts(header: GgufHeader, fileSize?: number): GgufFacts {
  const m = header.metadata;
  const arch = m.get("general.architecture");
  const architecture = typeof arch === "string" && arch ? arch : "unknown";
  const k = (suffix: string) => m.get(`${architecture}.${suffix}`);
  const heads = count(k("attention.head_count"));
  const kvHeads = count(k("attention.head_count_kv")) ?? heads;
  const embeddingWidth = count(k("embedding_length"));
  const headDim = count(k("attention.key_length")) ??
    (embeddingWidth && heads ? embeddingWidth / heads : undefined);
  const pool = m.get(`${architecture}.pooling_type`);
  const ft = m.get("general.file_type");
  const name = m.get("general.name");
  const facts: GgufFacts = {
    architecture,
    tensorCount: header.tensorCount,
    dataOffset: header.dataOffset,
  };
  const set = <K extends keyof GgufFacts>(key: K, v: GgufFacts[K] | undefined) => {
    if (v !== undefined) facts[key] = v;
  };
  set("name", typeof name === "string" && name ? name : undefined);
  set("trainedContext", count(k("context_length")));
  set("layers", count(k("block_count")));
  set("heads", heads);
  set("kvHeads", kvHeads);
  set("headDim", headDim && Number.isInteger(headDim) ? headDim : undefined);
  set("embeddingWidth", embeddingWidth);
  set("pooling", typeof pool === "number" ? poolings[pool] : undefined);
  set("fileType", typeof ft === "number" ? (fileTypes[ft] ?? `type ${ft}`) : undefined);
  set("experts", count(k("expert_count")));
  if (fileSize !== undefined) {
    facts.fileSize = fileSize;
    facts.tensorBytes = Math.max(0, fileSize - header.dataOffset);
  }
  return facts;
}
