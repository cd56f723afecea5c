import { checkMaxLoraRank, checkPositiveInteger, checkSwitch, oneOf, refuse } from "../internal/validate.js";
import { MAX_LORA_RANKS, VLLM_DEFAULT_MAX_LORA_RANK } from "../max-lora-rank.js";

// vLLM's engine options that a serving intent sets, each declared once. The option types
// (`FullServeOptions`, `LoraServeOptions`), the normalizer, the `vllm serve` arguments, the owned-flag guard,
// the production-stack values, `serveConfigFromRecommendations`, the CLI's flags and `--help`, and the
// serving guide's option table all read this file. Adding an option is a field of `EngineOptionValues` and
// its entry in `ENGINE_OPTIONS` (vLLM's default included, in `vllmDefault`): the compiler refuses an entry that lacks a part, and
// `engine-options.test.ts` walks the table.
// Flags and rules follow vLLM's `EngineArgs` (vllm/engine/arg_utils.py) at commit 00da11e37d1f, the one
// `internal/owned-flags.ts` follows; the chart keys follow production-stack's deployment-vllm-multi.yaml.

/** `--dtype`: the weights' and activations' type, as vLLM names them. */
export const VLLM_DTYPES = ["auto", "half", "float16", "bfloat16", "float", "float32"] as const;
export type VllmDtype = (typeof VLLM_DTYPES)[number];

/** `--kv-cache-dtype`: the KV cache's element type; the fp8 kinds store one byte per element. */
export const VLLM_KV_CACHE_DTYPES = ["auto", "bfloat16", "float16", "fp8", "fp8_e4m3", "fp8_e5m2"] as const;
export type VllmKvCacheDtype = (typeof VLLM_KV_CACHE_DTYPES)[number];

/**
 * `--quantization`: vLLM's methods (its `QuantizationMethods`, which EngineArgs turns into the flag's choices and
 * ModelConfig._verify_quantization checks): the names at vLLM 05d909563e1d, plus those of v0.9 (0034007debee)
 * that it dropped since (aqlm, marlin, hqq, qqq, ...), so a serve on either release is not refused here.
 */
export const VLLM_QUANTIZATION_METHODS = [
  "awq",
  "fp8",
  "ptpc_fp8",
  "fbgemm_fp8",
  "fp_quant",
  "modelopt",
  "modelopt_fp4",
  "bitblas",
  "gguf",
  "gptq_marlin_24",
  "gptq_marlin",
  "gptq_bitblas",
  "awq_marlin",
  "gptq",
  "compressed-tensors",
  "bitsandbytes",
  "experts_int8",
  "ipex",
  "quark",
  "moe_wna16",
  "torchao",
  "inc",
  "mxfp4",
  "mxfp8",
  "petit_nvfp4",
  "cpu_awq",
  "aqlm",
  "deepspeedfp",
  "tpu_int8",
  "deepgemm_fp8",
  "marlin",
  "qqq",
  "hqq",
  "neuron_quant",
  "auto-round",
] as const;
export type VllmQuantizationMethod = (typeof VLLM_QUANTIZATION_METHODS)[number];

/** `--block-size`: tokens in one KV-cache page, one of vLLM's `BlockSize` (vllm/config/cache.py). */
export const VLLM_BLOCK_SIZES = [1, 8, 16, 32, 64, 128, 256] as const;
export type VllmBlockSize = (typeof VLLM_BLOCK_SIZES)[number];

/** The engine options, by the name a serving intent gives them. */
export interface EngineOptionValues {
  /** LoRA only: the largest adapter rank to accept, one of `MAX_LORA_RANKS`. */
  maxLoraRank: number;
  /** LoRA only: how many adapters may run in one batch. */
  maxLoras: number;
  /** The longest context (prompt plus output) in tokens. */
  maxModelLen: number;
  /** The type of the weights and activations (`auto` takes the checkpoint's). */
  dtype: VllmDtype;
  /** The share of each GPU's memory vLLM may use, above 0 and at most 1. */
  gpuMemoryUtilization: number;
  /** How many GPUs one instance shards the model across. */
  tensorParallelSize: number;
  /** How many sequences run in one batch at most. */
  maxNumSeqs: number;
  /** Reuse the KV cache of shared prompt prefixes. */
  enablePrefixCaching: boolean;
  /** How the checkpoint is quantized (`awq`, `gptq`, `fp8`, `bitsandbytes`, ...); vLLM reads it from the checkpoint when absent. */
  quantization: VllmQuantizationMethod;
  /** The KV cache's type: `auto` (the model's) or an fp8 kind, which holds twice the tokens in the same memory. */
  kvCacheDtype: VllmKvCacheDtype;
  /** LoRA only: adapters kept in host memory, ready to swap in; at least `maxLoras`. */
  maxCpuLoras: number;
  /** Tokens in one scheduled batch at most; with max_num_seqs it sizes vLLM's start-up profile. */
  maxNumBatchedTokens: number;
  /** Run without CUDA graphs: slower decoding, but their memory and start-up capture are saved. */
  enforceEager: boolean;
  /** Tokens in one KV-cache page: the KV cache is allocated, and requests take memory, a page at a time. */
  blockSize: VllmBlockSize;
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

/**
 * vLLM's default when the option is not given (EngineArgs and the configs it fills): one value; one that
 * depends on the GPU (EngineArgs.get_batch_defaults: `large` on GPUs of 70 GiB or more that are not A100s);
 * or one vLLM derives, in words.
 */
export type VllmDefault<V> =
  | { kind: "value"; value: V }
  | { kind: "by-gpu"; large: V; other: V }
  | { kind: "derived"; from: string };

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
  /** What vLLM takes when the option is not given: the plan, the front door and every help line read it here. */
  vllmDefault: VllmDefault<EngineOptionValues[K]>;
  /**
   * The command line: the value's name in `--help` (null for a switch, which also has `--no-<flag>`), and its
   * line: what it does, then vLLM's default from `vllmDefault`.
   */
  cli: { valueName: string | null; help: string };
}

/** An entry as written below: the help line without the default, which `entry` adds from `vllmDefault`. */
type EngineOptionEntry<K extends EngineOptionKey> = Omit<EngineOption<K>, "cli"> & {
  cli: { valueName: string | null; about: string };
};

function entry<K extends EngineOptionKey>(written: EngineOptionEntry<K>): EngineOption<K> {
  const { cli, ...rest } = written;
  return {
    ...rest,
    cli: { valueName: cli.valueName, help: `${cli.about} (${vllmDefaultText(written.vllmDefault)})` },
  };
}

/** vLLM's default in words, for help lines and docs: "vLLM: 0.9". */
export function vllmDefaultText(vllmDefault: VllmDefault<unknown>): string {
  const shown = (value: unknown) => (value === true ? "on" : value === false ? "off" : String(value));
  if (vllmDefault.kind === "value") return `vLLM: ${shown(vllmDefault.value)}`;
  if (vllmDefault.kind === "by-gpu")
    return `vLLM: ${shown(vllmDefault.large)} on GPUs of 70 GiB or more but A100s, else ${shown(vllmDefault.other)}`;
  return `vLLM: ${vllmDefault.from}`;
}

/** EngineArgs.get_batch_defaults' split: GPUs of 70 GiB or more, except A100s, take the larger batch defaults. */
export function isLargeGpuForVllm(memoryBytes: number, name: string | undefined): boolean {
  return memoryBytes >= 70 * 1024 ** 3 && !(name ?? "").toLowerCase().includes("a100");
}

/**
 * vLLM's default for an option on a GPU (its memory and name, for the options whose default depends on it),
 * or undefined when vLLM derives it from something else (the model, another option).
 */
export function vllmDefaultOf<K extends EngineOptionKey>(
  key: K,
  gpu?: { memoryBytes: number; name?: string | undefined },
): EngineOptionValues[K] | undefined {
  const known = ENGINE_OPTIONS[key].vllmDefault as VllmDefault<EngineOptionValues[K]>;
  if (known.kind === "value") return known.value;
  if (known.kind === "by-gpu")
    return gpu === undefined || isLargeGpuForVllm(gpu.memoryBytes, gpu.name) ? known.large : known.other;
  return undefined;
}

/** vLLM's human_readable_int suffixes: lowercase decimal, uppercase binary. */
const DECIMAL_SUFFIX: Readonly<Record<string, number>> = { k: 1e3, m: 1e6, g: 1e9, t: 1e12 };
const BINARY_SUFFIX: Readonly<Record<string, number>> = { K: 2 ** 10, M: 2 ** 20, G: 2 ** 30, T: 2 ** 40 };
const TOKEN_COUNT_RULE =
  "must be a whole number of tokens of at least 1, such as 8192, or with vLLM's suffixes: 8k = 8000, 8K = 8192 (k m g t decimal, K M G T binary; a decimal point with the decimal ones only, as in 25.6k)";

/**
 * --max-model-len as vLLM reads it (human_readable_int in vllm/utils/argparse_utils.py): a plain integer, or
 * digits with one suffix, k/m/g/t for powers of 1000 (a decimal point allowed: int(float(n) × 1000)) and
 * K/M/G/T for powers of 1024 (whole numbers only). Newer vLLM also takes -1 or `auto` (fit the memory); the
 * plan and the builder need a number, so those are refused here with the rule.
 */
export function checkTokenCount(value: unknown, field: string): number {
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value) || value < 1) refuse(field, TOKEN_COUNT_RULE, value);
    return value;
  }
  const text = typeof value === "string" ? value.trim() : "";
  const match = /^(\d+(?:\.\d+)?)([kmgtKMGT])?$/.exec(text);
  if (!match) refuse(field, TOKEN_COUNT_RULE, value);
  const [, digits = "", suffix] = match;
  let tokens: number;
  if (suffix === undefined) tokens = digits.includes(".") ? Number.NaN : Number(digits);
  else if (suffix in DECIMAL_SUFFIX) tokens = Math.trunc(Number(digits) * (DECIMAL_SUFFIX[suffix] ?? 1));
  else tokens = digits.includes(".") ? Number.NaN : Number(digits) * (BINARY_SUFFIX[suffix] ?? 1);
  if (!Number.isSafeInteger(tokens) || tokens < 1) refuse(field, TOKEN_COUNT_RULE, value);
  return tokens;
}

const flagWithValue = (flag: `--${string}`) => (value: number | string) => [flag, String(value)];

/** Every engine option, in the order its flag follows the builder's own in `vllm serve`. */
export const ENGINE_OPTIONS: { readonly [K in EngineOptionKey]: EngineOption<K> } = {
  maxLoraRank: entry({
    key: "maxLoraRank",
    flag: "--max-lora-rank",
    loraOnly: true,
    owned: "always",
    check: checkMaxLoraRank,
    argv: flagWithValue("--max-lora-rank"),
    stackKey: null,
    vllmDefault: { kind: "value", value: VLLM_DEFAULT_MAX_LORA_RANK },
    cli: { valueName: "R", about: `largest adapter rank: ${MAX_LORA_RANKS.join(", ")}` },
  }),
  maxLoras: entry({
    key: "maxLoras",
    flag: "--max-loras",
    loraOnly: true,
    owned: "always",
    check: checkPositiveInteger,
    argv: flagWithValue("--max-loras"),
    stackKey: "maxLoras",
    vllmDefault: { kind: "value", value: 1 },
    cli: { valueName: "K", about: "adapters in one batch" },
  }),
  maxModelLen: entry({
    key: "maxModelLen",
    flag: "--max-model-len",
    loraOnly: false,
    owned: "when-set",
    // vLLM's suffixes (8k, 8K) are read here; vLLM is passed the number.
    check: checkTokenCount,
    argv: flagWithValue("--max-model-len"),
    stackKey: "maxModelLen",
    vllmDefault: { kind: "derived", from: "the model's own, from its config.json" },
    cli: {
      valueName: "N",
      about: "longest context in tokens, prompt and output: 8192, 8k = 8000, 8K = 8192",
    },
  }),
  dtype: entry({
    key: "dtype",
    flag: "--dtype",
    loraOnly: false,
    owned: "when-set",
    check: oneOf(VLLM_DTYPES),
    argv: flagWithValue("--dtype"),
    stackKey: "dtype",
    vllmDefault: { kind: "value", value: "auto" },
    cli: { valueName: "T", about: `weights' type: ${VLLM_DTYPES.join(", ")}` },
  }),
  gpuMemoryUtilization: entry({
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
    vllmDefault: { kind: "value", value: 0.9 },
    cli: { valueName: "F", about: "share of each GPU's memory vLLM may use, 0 to 1" },
  }),
  tensorParallelSize: entry({
    key: "tensorParallelSize",
    flag: "--tensor-parallel-size",
    loraOnly: false,
    owned: "when-set",
    check: checkPositiveInteger,
    argv: flagWithValue("--tensor-parallel-size"),
    stackKey: "tensorParallelSize",
    vllmDefault: { kind: "value", value: 1 },
    cli: { valueName: "N", about: "GPUs one instance shards the model across" },
  }),
  maxNumSeqs: entry({
    key: "maxNumSeqs",
    flag: "--max-num-seqs",
    loraOnly: false,
    owned: "when-set",
    check: checkPositiveInteger,
    argv: flagWithValue("--max-num-seqs"),
    stackKey: "maxNumSeqs",
    vllmDefault: { kind: "by-gpu", large: 1024, other: 256 },
    cli: { valueName: "N", about: "sequences in one batch at most" },
  }),
  enablePrefixCaching: entry({
    key: "enablePrefixCaching",
    flag: "--enable-prefix-caching",
    loraOnly: false,
    owned: "when-set",
    check: checkSwitch,
    argv: (on) => [on ? "--enable-prefix-caching" : "--no-enable-prefix-caching"],
    stackKey: "enablePrefixCaching",
    vllmDefault: { kind: "derived", from: "on for most models" },
    cli: { valueName: null, about: "reuse the KV cache of shared prompt prefixes (--no-... turns it off)" },
  }),
  quantization: entry({
    key: "quantization",
    flag: "--quantization",
    loraOnly: false,
    owned: "when-set",
    // vLLM's parser takes only its methods (the flag's choices): refused here with the list, before it starts.
    check: oneOf(VLLM_QUANTIZATION_METHODS),
    argv: flagWithValue("--quantization"),
    stackKey: null,
    vllmDefault: { kind: "derived", from: "the checkpoint's quantization_config" },
    cli: { valueName: "Q", about: "how the checkpoint is quantized: awq, gptq, fp8, bitsandbytes, ..." },
  }),
  kvCacheDtype: entry({
    key: "kvCacheDtype",
    flag: "--kv-cache-dtype",
    loraOnly: false,
    owned: "when-set",
    check: oneOf(VLLM_KV_CACHE_DTYPES),
    argv: flagWithValue("--kv-cache-dtype"),
    // The chart's vllmConfig has no key for it: the words go into extraArgs.
    stackKey: null,
    vllmDefault: { kind: "value", value: "auto" },
    cli: { valueName: "T", about: `KV cache's type: ${VLLM_KV_CACHE_DTYPES.join(", ")}` },
  }),
  maxCpuLoras: entry({
    key: "maxCpuLoras",
    flag: "--max-cpu-loras",
    loraOnly: true,
    owned: "when-set",
    check: checkPositiveInteger,
    // vLLM's LoRAConfig refuses fewer: every adapter in a batch is also kept in the host cache.
    checkWithOthers: (value, others, field) => {
      const maxLoras = others.maxLoras ?? fixedVllmDefault("maxLoras");
      if (value < maxLoras) refuse(field, `must be at least maxLoras (${maxLoras})`, value);
    },
    argv: flagWithValue("--max-cpu-loras"),
    stackKey: null,
    vllmDefault: { kind: "derived", from: "--max-loras" },
    cli: { valueName: "K", about: "adapters kept in host memory, at least --max-loras" },
  }),
  maxNumBatchedTokens: entry({
    key: "maxNumBatchedTokens",
    flag: "--max-num-batched-tokens",
    loraOnly: false,
    owned: "when-set",
    check: checkPositiveInteger,
    argv: flagWithValue("--max-num-batched-tokens"),
    stackKey: null,
    vllmDefault: { kind: "by-gpu", large: 8192, other: 2048 },
    cli: { valueName: "N", about: "tokens in one scheduled batch at most" },
  }),
  enforceEager: entry({
    key: "enforceEager",
    flag: "--enforce-eager",
    loraOnly: false,
    owned: "when-set",
    check: checkSwitch,
    argv: (on) => [on ? "--enforce-eager" : "--no-enforce-eager"],
    stackKey: null,
    vllmDefault: { kind: "value", value: false },
    cli: { valueName: null, about: "no CUDA graphs: saves their memory, decodes slower" },
  }),
  blockSize: entry({
    key: "blockSize",
    flag: "--block-size",
    loraOnly: false,
    owned: "when-set",
    check: oneOf(VLLM_BLOCK_SIZES),
    argv: flagWithValue("--block-size"),
    // The chart's vllmConfig has no key for it: the words go into extraArgs.
    stackKey: null,
    // CudaPlatform.check_and_update_config sets 16 when it is not given (MLA backends may force 64 or 128).
    vllmDefault: { kind: "value", value: 16 },
    cli: { valueName: "N", about: `tokens in one KV-cache page: ${VLLM_BLOCK_SIZES.join(", ")}` },
  }),
};

/** vLLM's default for an option whose default is one value (the compiler cannot tell; a test walks the table). */
export function fixedVllmDefault<K extends EngineOptionKey>(key: K): EngineOptionValues[K] {
  const known = ENGINE_OPTIONS[key].vllmDefault as VllmDefault<EngineOptionValues[K]>;
  if (known.kind !== "value") throw new Error(`${key}: vLLM's default is not one value`);
  return known.value;
}

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
