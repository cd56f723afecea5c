import { checkMaxLoraRank, checkPositiveInteger, checkSwitch, oneOf, refuse } from "../internal/validate.js";
import { MAX_LORA_RANKS } from "../max-lora-rank.js";

// vLLM's engine options that a serving intent sets, each declared once. The option types
// (`FullServeOptions`, `LoraServeOptions`), the normalizer, the `vllm serve` arguments, the owned-flag guard,
// the production-stack values, `serveConfigFromRecommendations`, the CLI's flags and `--help`, and the
// serving guide's option table all read this file. Adding an option is a field of `EngineOptionValues` and
// its entry in `ENGINE_OPTIONS`: the compiler refuses an entry that lacks a part, and
// `engine-options.test.ts` walks the table.
// Flags and rules follow vLLM's `EngineArgs` (vllm/engine/arg_utils.py) at commit 00da11e37d1f, the one
// `internal/owned-flags.ts` follows; the chart keys follow production-stack's deployment-vllm-multi.yaml.

/** `--dtype`: the weights' and activations' type, as vLLM names them. */
export const VLLM_DTYPES = ["auto", "half", "float16", "bfloat16", "float", "float32"] as const;
export type VllmDtype = (typeof VLLM_DTYPES)[number];

/** `--kv-cache-dtype`: the KV cache's element type; the fp8 kinds store one byte per element. */
export const VLLM_KV_CACHE_DTYPES = ["auto", "bfloat16", "float16", "fp8", "fp8_e4m3", "fp8_e5m2"] as const;
export type VllmKvCacheDtype = (typeof VLLM_KV_CACHE_DTYPES)[number];

/** The engine options, by the name a serving intent gives them. */
export interface EngineOptionValues {
  /** LoRA only: the largest adapter rank to accept, one of `MAX_LORA_RANKS` (vLLM's default is 16). */
  maxLoraRank: number;
  /** LoRA only: how many adapters may run in one batch (vLLM's default is 1). */
  maxLoras: number;
  /** The longest context (prompt plus output) in tokens; by default the model's own. */
  maxModelLen: number;
  /** The type of the weights and activations (`auto` takes the checkpoint's). */
  dtype: VllmDtype;
  /** The share of each GPU's memory vLLM may use, above 0 and at most 1 (vLLM's default is 0.9). */
  gpuMemoryUtilization: number;
  /** How many GPUs one instance shards the model across. */
  tensorParallelSize: number;
  /** How many sequences run in one batch at most. */
  maxNumSeqs: number;
  /** Reuse the KV cache of shared prompt prefixes (vLLM turns it on by default for most models). */
  enablePrefixCaching: boolean;
  /** How the checkpoint is quantized (`awq`, `gptq`, `fp8`, `bitsandbytes`, ...); vLLM reads it from the checkpoint when absent. */
  quantization: string;
  /** The KV cache's type: `auto` (the model's) or an fp8 kind, which holds twice the tokens in the same memory. */
  kvCacheDtype: VllmKvCacheDtype;
  /** LoRA only: adapters kept in host memory, ready to swap in; at least `maxLoras` (vLLM's default is `maxLoras`). */
  maxCpuLoras: number;
  /** Tokens in one scheduled batch at most; with max_num_seqs it sizes vLLM's start-up profile (vLLM picks a default for the GPU). */
  maxNumBatchedTokens: number;
  /** Run without CUDA graphs: slower decoding, but their memory and start-up capture are saved. */
  enforceEager: boolean;
}

export type EngineOptionKey = keyof EngineOptionValues;
/** The options a full serve does not take. */
export type LoraOnlyKey = "maxLoraRank" | "maxLoras" | "maxCpuLoras";
/** The engine options a full serve takes, or a LoRA serve (which takes them all). */
export type FullEngineOptions = Partial<Omit<EngineOptionValues, LoraOnlyKey>>;
export type LoraEngineOptions = Partial<EngineOptionValues>;

/** The keys of the chart's `vllmConfig` these options may set. */
export type StackVllmConfigKey =
  | "maxModelLen"
  | "dtype"
  | "gpuMemoryUtilization"
  | "tensorParallelSize"
  | "maxNumSeqs"
  | "enablePrefixCaching"
  | "maxLoras";

/** One option: every part a reader needs. */
export interface EngineOption<K extends EngineOptionKey> {
  key: K;
  /** vLLM's flag, as `vllm serve --help` spells it. */
  flag: `--${string}`;
  /** Taken by a LoRA serve only. */
  loraOnly: K extends LoraOnlyKey ? true : false;
  /**
   * Whether `extraArgs` may set the flag: `always` owned (the builder writes it or a rule needs it), or owned
   * only `when-set`: without the option, `-- --flag value` still reaches vLLM as before.
   */
  owned: "always" | "when-set";
  /** Checks a value from plain JavaScript or the command line; returns it typed or throws a ServeConfigError. */
  check: (value: unknown, field: string) => EngineOptionValues[K];
  /** A rule against the other options given (checked each), for an option bounded by another. */
  checkWithOthers?: (value: EngineOptionValues[K], others: LoraEngineOptions, field: string) => void;
  /** The words after `vllm serve` for a checked value. */
  argv: (value: EngineOptionValues[K]) => string[];
  /** The chart's `vllmConfig` key, or null: then the words go into `vllmConfig.extraArgs`. */
  stackKey: StackVllmConfigKey | null;
  /** The command line: the value's name in `--help` (null for a switch, which also has `--no-<flag>`), and its line. */
  cli: { valueName: string | null; help: string };
}

const flagWithValue = (flag: `--${string}`) => (value: number | string) => [flag, String(value)];

/** Every engine option, in the order its flag follows the builder's own in `vllm serve`. */
export const ENGINE_OPTIONS: { readonly [K in EngineOptionKey]: EngineOption<K> } = {
  maxLoraRank: {
    key: "maxLoraRank",
    flag: "--max-lora-rank",
    loraOnly: true,
    owned: "always",
    check: checkMaxLoraRank,
    argv: flagWithValue("--max-lora-rank"),
    stackKey: null,
    cli: { valueName: "R", help: `largest adapter rank: ${MAX_LORA_RANKS.join(", ")} (vLLM: 16)` },
  },
  maxLoras: {
    key: "maxLoras",
    flag: "--max-loras",
    loraOnly: true,
    owned: "always",
    check: checkPositiveInteger,
    argv: flagWithValue("--max-loras"),
    stackKey: "maxLoras",
    cli: { valueName: "K", help: "adapters in one batch (vLLM: 1)" },
  },
  maxModelLen: {
    key: "maxModelLen",
    flag: "--max-model-len",
    loraOnly: false,
    owned: "when-set",
    check: checkPositiveInteger,
    argv: flagWithValue("--max-model-len"),
    stackKey: "maxModelLen",
    cli: { valueName: "N", help: "longest context in tokens, prompt and output (default: the model's)" },
  },
  dtype: {
    key: "dtype",
    flag: "--dtype",
    loraOnly: false,
    owned: "when-set",
    check: oneOf(VLLM_DTYPES),
    argv: flagWithValue("--dtype"),
    stackKey: "dtype",
    cli: { valueName: "T", help: `weights' type: ${VLLM_DTYPES.join(", ")} (vLLM: auto)` },
  },
  gpuMemoryUtilization: {
    key: "gpuMemoryUtilization",
    flag: "--gpu-memory-utilization",
    loraOnly: false,
    owned: "when-set",
    check: (value, field) => {
      if (typeof value !== "number" || !(value > 0 && value <= 1)) {
        refuse(field, "must be a number above 0 and at most 1 (the share of each GPU's memory)", value);
      }
      return value;
    },
    argv: flagWithValue("--gpu-memory-utilization"),
    stackKey: "gpuMemoryUtilization",
    cli: { valueName: "F", help: "share of each GPU's memory vLLM may use, 0 to 1 (vLLM: 0.9)" },
  },
  tensorParallelSize: {
    key: "tensorParallelSize",
    flag: "--tensor-parallel-size",
    loraOnly: false,
    owned: "when-set",
    check: checkPositiveInteger,
    argv: flagWithValue("--tensor-parallel-size"),
    stackKey: "tensorParallelSize",
    cli: { valueName: "N", help: "GPUs one instance shards the model across (vLLM: 1)" },
  },
  maxNumSeqs: {
    key: "maxNumSeqs",
    flag: "--max-num-seqs",
    loraOnly: false,
    owned: "when-set",
    check: checkPositiveInteger,
    argv: flagWithValue("--max-num-seqs"),
    stackKey: "maxNumSeqs",
    cli: { valueName: "N", help: "sequences in one batch at most (vLLM picks a default for the GPU)" },
  },
  enablePrefixCaching: {
    key: "enablePrefixCaching",
    flag: "--enable-prefix-caching",
    loraOnly: false,
    owned: "when-set",
    check: checkSwitch,
    argv: (on) => [on ? "--enable-prefix-caching" : "--no-enable-prefix-caching"],
    stackKey: "enablePrefixCaching",
    cli: { valueName: null, help: "reuse the KV cache of shared prompt prefixes (--no-... turns it off)" },
  },
  quantization: {
    key: "quantization",
    flag: "--quantization",
    loraOnly: false,
    owned: "when-set",
    check: (value, field) => {
      // vLLM's list grows with each release: the shape is checked here, the name by vLLM itself.
      if (typeof value !== "string" || !/^[a-z0-9][a-z0-9_-]{0,63}$/.test(value)) {
        refuse(field, "must be a quantization method name such as awq, gptq, fp8 or bitsandbytes", value);
      }
      return value;
    },
    argv: flagWithValue("--quantization"),
    stackKey: null,
    cli: { valueName: "Q", help: "how the checkpoint is quantized: awq, gptq, fp8, ... (vLLM: from it)" },
  },
  kvCacheDtype: {
    key: "kvCacheDtype",
    flag: "--kv-cache-dtype",
    loraOnly: false,
    owned: "when-set",
    check: oneOf(VLLM_KV_CACHE_DTYPES),
    argv: flagWithValue("--kv-cache-dtype"),
    // The chart's vllmConfig has no key for it: the words go into extraArgs.
    stackKey: null,
    cli: { valueName: "T", help: `KV cache's type: ${VLLM_KV_CACHE_DTYPES.join(", ")} (vLLM: auto)` },
  },
  maxCpuLoras: {
    key: "maxCpuLoras",
    flag: "--max-cpu-loras",
    loraOnly: true,
    owned: "when-set",
    check: checkPositiveInteger,
    // vLLM's LoRAConfig refuses fewer: every adapter in a batch is also kept in the host cache.
    checkWithOthers: (value, others, field) => {
      const maxLoras = others.maxLoras ?? 1;
      if (value < maxLoras) refuse(field, `must be at least maxLoras (${maxLoras})`, value);
    },
    argv: flagWithValue("--max-cpu-loras"),
    stackKey: null,
    cli: { valueName: "K", help: "adapters kept in host memory, at least --max-loras (vLLM: --max-loras)" },
  },
  maxNumBatchedTokens: {
    key: "maxNumBatchedTokens",
    flag: "--max-num-batched-tokens",
    loraOnly: false,
    owned: "when-set",
    check: checkPositiveInteger,
    argv: flagWithValue("--max-num-batched-tokens"),
    stackKey: null,
    cli: { valueName: "N", help: "tokens in one scheduled batch at most (vLLM picks a default for the GPU)" },
  },
  enforceEager: {
    key: "enforceEager",
    flag: "--enforce-eager",
    loraOnly: false,
    owned: "when-set",
    check: checkSwitch,
    argv: (on) => [on ? "--enforce-eager" : "--no-enforce-eager"],
    stackKey: null,
    cli: {
      valueName: null,
      help: "no CUDA graphs: saves their memory, decodes slower (--no-... is vLLM's default)",
    },
  },
};

/** The entries in table order, for readers that walk them. */
export const ENGINE_OPTION_LIST: readonly EngineOption<EngineOptionKey>[] = Object.values(
  ENGINE_OPTIONS,
) as EngineOption<EngineOptionKey>[];

/** The entries a serve of this kind takes. */
export function engineOptionsFor(kind: "full" | "lora"): readonly EngineOption<EngineOptionKey>[] {
  return ENGINE_OPTION_LIST.filter((option) => kind === "lora" || !option.loraOnly);
}

/** Checks each engine option the input holds (for its kind) and returns those given, typed. */
export function normalizeEngineOptions(
  input: Record<string, unknown>,
  kind: "full" | "lora",
): LoraEngineOptions {
  const engine: Record<string, unknown> = {};
  const options = engineOptionsFor(kind);
  for (const option of options) {
    const value = input[option.key];
    if (value !== undefined) engine[option.key] = option.check(value, option.key);
  }
  for (const option of options) {
    const value = engine[option.key];
    if (value !== undefined) option.checkWithOthers?.(value as never, engine, option.key);
  }
  return engine as LoraEngineOptions;
}

/** The `vllm serve` words for the options given, in table order. */
export function engineArguments(engine: LoraEngineOptions): string[] {
  return ENGINE_OPTION_LIST.flatMap((option) => {
    const value = engine[option.key];
    return value === undefined ? [] : (option.argv as (value: unknown) => string[])(value);
  });
}
