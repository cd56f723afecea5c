import { checkObject, checkPositiveInteger, refuse } from "../internal/validate.js";
import { fixedVllmDefault, vllmDefaultOf } from "../options/engine-options.js";
import { figure, kvMemoryErrorMargin, type PlanFigure } from "./estimate.js";
import { kvBytesPerToken, kvCacheDtypeBytes, layerKvSpecs } from "./kv-cache-spec.js";
import { type KvCacheGroup, kvCapacity, largestFittingModelLen } from "./kv-capacity.js";
import { type LoraMemory, loraMemory } from "./lora.js";
import { cudaGraphMemory, cudaVisibleMemory, memoryProfile, requestedMemory } from "./memory-profile.js";
import { KNOWN_ARCHITECTURES, type ModelShape, parseModelConfig } from "./model-config.js";
import { loadedCheckpointBytes, type PlanModel } from "./model-files.js";
import { type CheckedPlanSettings, checkPlanSettings, type PlanSettings } from "./settings.js";
import { checkStartup, type ServedDtype, servedDtype } from "./startup-rules.js";
import { tensorParallelStarts } from "./tensor-parallel.js";
import { decideVerdict, type FitTry, type PlanVerdict } from "./verdict.js";
import { VLLM_PLAN_COMMIT } from "./vllm-commit.js";
import { weightMemory } from "./weights.js";

/** The GPU to plan for: its memory as nvidia-smi reports it, and how many there are. */
export interface PlanGpu {
  name?: string;
  memoryBytes: number;
  /** GPUs available (defaults to the tensor-parallel size). */
  count?: number;
  /** CUDA compute capability, such as 7.5 (`GPU_MODELS` has it): bfloat16 needs 8.0. Unchecked when absent. */
  computeCapability?: number;
}

/** The KV cache as vLLM will lay it out on each GPU. */
export interface PlanKvCache {
  /** KV bytes one token takes on one GPU, over all its layers. */
  bytesPerToken: number;
  groups: readonly KvCacheGroup[];
  numBlocks: number;
  /** Predicts "GPU KV cache size: N tokens". */
  tokens: number;
  /** Predicts "Maximum concurrency for L tokens per request: Cx". */
  maxConcurrency: number;
  /** KV memory one request of max_model_len needs on each GPU. */
  bytesPerFullRequest: number;
  /** vLLM's estimate of the largest max_model_len the memory holds (0 when not one token). */
  largestFittingModelLen: number;
}

export interface ServePlan {
  /** The vLLM commit whose code the rules follow. */
  vllmCommit: string;
  architecture: string;
  gpu: { name: string | null; memoryBytes: number; count: number };
  /** The settings as vLLM will take them, defaults filled in. */
  resolved: {
    gpuMemoryUtilization: number;
    maxModelLen: number;
    tensorParallelSize: number;
    kvCacheDtype: string;
    maxNumSeqs: number;
    maxNumBatchedTokens: number;
    blockSize: number;
  };
  cudaVisibleMemory: PlanFigure;
  requestedMemory: PlanFigure;
  /** Per GPU, LoRA's adapter slots included. */
  weights: PlanFigure;
  lora: LoraMemory | null;
  activationPeak: PlanFigure;
  nonTorchMemory: PlanFigure;
  cudaGraphMemory: PlanFigure;
  /** Predicts "Available KV cache memory: X GiB" (negative means vLLM stops: no memory for the cache blocks). */
  availableKvMemory: PlanFigure & { signedBytes: number };
  /** Null when the architecture is not one the plan lays out (see cannotGive). */
  kvCache: PlanKvCache | null;
  /** Figures the plan cannot give, and why. */
  cannotGive: string[];
  notes: string[];
  verdict: PlanVerdict;
}

/** Sizes vLLM is often run at, tried past the GPUs given to say how many would be needed. */
const TENSOR_PARALLEL_TRIES = [2, 4, 8];

/** The environment variables of vLLM's that change a start-up rule (vllm/envs.py). */
export interface PlanEnvironment {
  /** "1" or "true": vLLM warns instead of refusing a max_model_len above the model's own. */
  VLLM_ALLOW_LONG_MAX_MODEL_LEN?: string | undefined;
}

/**
 * Will this model, on this GPU, with these vLLM settings, start and hold a request of max_model_len?
 * Pure: it takes the parsed files and reads nothing. Every figure says which vLLM log line it predicts, and
 * the verdict refuses what vLLM's start-up checks refuse.
 */
export function planServe(
  model: PlanModel,
  gpu: PlanGpu,
  rawSettings: PlanSettings = {},
  environment: PlanEnvironment = {},
): ServePlan {
  checkObject(model, "model");
  const settings = checkPlanSettings(rawSettings);
  const parsed = parseModelConfig(model.config);
  const weightsBytes = loadedCheckpointBytes(model, parsed.shape);
  const memoryBytes = checkGpuMemory(gpu);
  const computeCapability = checkComputeCapability(gpu.computeCapability);
  const tp = settings.tensorParallelSize ?? fixedVllmDefault("tensorParallelSize");
  const count = gpu.count === undefined ? tp : checkPositiveInteger(gpu.count, "gpu.count");
  if (tp > count) refuse("tensorParallelSize", `must not exceed the GPUs available (${count})`, tp);
  const shape = parsed.shape;
  const config = model.config as Record<string, unknown>;
  const elementBytes = DTYPE_BYTES[servedDtype(config, settings.dtype, computeCapability)];
  const attempt = (tensorParallelSize: number) =>
    shape
      ? profile(shape, weightsBytes, memoryBytes, gpu.name, tensorParallelSize, settings, elementBytes)
      : weightsOnlyProfile(
          parsed.unknownArchitecture,
          weightsBytes,
          memoryBytes,
          gpu.name,
          tensorParallelSize,
          settings,
        );
  const current = attempt(tp);
  const larger = largerTensorParallelSizes(tp, count, config).map((n) => attempt(n).fit);
  const startup = checkStartup({
    config,
    derivedMaxModelLen: shape?.derivedMaxModelLen ?? null,
    settings,
    tensorParallelSize: tp,
    gpu: { name: gpu.name ?? null, computeCapability },
    allowLongMaxModelLen: allowsLongMaxModelLen(environment),
  });
  return {
    ...current.plan,
    gpu: { name: gpu.name ?? null, memoryBytes, count },
    notes: [...startup.notes, ...current.plan.notes],
    verdict: decideVerdict({ refusals: startup.refusals, current: current.fit, larger, gpus: count }),
  };
}

/**
 * Sizes above `tp` that vLLM would start the model at (every split even: tensor-parallel.ts): every one up to
 * the GPUs given, then the usual ones. A size the plan suggests is one of these.
 */
function largerTensorParallelSizes(tp: number, gpus: number, config: Record<string, unknown>): number[] {
  const onGpusGiven = Array.from({ length: Math.min(gpus, 64) }, (_, i) => i + 1);
  return [...new Set([...onGpusGiven, ...TENSOR_PARALLEL_TRIES])]
    .filter((n) => n > tp && tensorParallelStarts(config, n))
    .sort((a, b) => a - b);
}

/** vllm/envs.py: VLLM_ALLOW_LONG_MAX_MODEL_LEN is on when it reads "1" or "true", trimmed, in any case. */
function allowsLongMaxModelLen(environment: PlanEnvironment): boolean {
  const value = checkObject(environment, "environment").VLLM_ALLOW_LONG_MAX_MODEL_LEN;
  if (value !== undefined && typeof value !== "string")
    refuse(
      "environment.VLLM_ALLOW_LONG_MAX_MODEL_LEN",
      "must be a string, as an environment variable is",
      value,
    );
  return ["1", "true"].includes((value ?? "0").trim().toLowerCase());
}

function checkGpuMemory(gpu: PlanGpu): number {
  checkObject(gpu, "gpu");
  const bytes = gpu.memoryBytes;
  if (typeof bytes !== "number" || !Number.isSafeInteger(bytes) || bytes < 1024 ** 3) {
    refuse("gpu.memoryBytes", "must be a whole number of bytes, at least 1 GiB", bytes);
  }
  return bytes;
}

function checkComputeCapability(value: unknown): number | null {
  if (value === undefined) return null;
  if (typeof value !== "number" || !(value >= 1 && value < 100)) {
    refuse("gpu.computeCapability", "must be the CUDA compute capability as a number, such as 8.9", value);
  }
  return value;
}

/** Bytes of each type vLLM serves in (servedDtype follows its resolution of `--dtype`). */
const DTYPE_BYTES: Record<ServedDtype, number> = { float16: 2, bfloat16: 2, float32: 4 };

/** One try at a tensor-parallel size, in vLLM's start-up order: settings, weights, profile, KV cache. */
function profile(
  shape: ModelShape,
  weightsBytes: number,
  memoryBytes: number,
  gpuName: string | undefined,
  tp: number,
  settings: CheckedPlanSettings,
  elementBytes: number,
): { plan: Omit<ServePlan, "gpu" | "verdict">; fit: FitTry } {
  const resolved = resolveSettings(settings, memoryBytes, gpuName, shape.derivedMaxModelLen, tp);
  const { weights, lora } = servedWeights(shape, weightsBytes, tp, elementBytes, settings);
  const memory = memoryProfile({ shape, weights, memoryBytes, elementBytes, ...resolved });
  const available = memory.availableKvMemory.signedBytes;
  const { kvCache, suggestedMaxModelLen, marginBytes } = kvCachePlan(
    shape,
    resolved,
    elementBytes,
    available,
  );
  const cudaGraph = cudaGraphMemory(settings.enforceEager === true);
  return {
    plan: {
      vllmCommit: VLLM_PLAN_COMMIT,
      architecture: shape.architecture,
      resolved,
      ...memory,
      weights,
      lora,
      cudaGraphMemory: cudaGraph,
      kvCache,
      cannotGive: [],
      notes: headroomNotes(memory.cudaVisibleMemory.bytes, resolved.gpuMemoryUtilization, cudaGraph.bytes),
    },
    fit: {
      tensorParallelSize: tp,
      availableKvBytes: available,
      bytesPerFullRequest: kvCache.bytesPerFullRequest,
      largestFittingModelLen: kvCache.largestFittingModelLen,
      suggestedMaxModelLen,
      marginBytes,
      maxModelLen: resolved.maxModelLen,
    },
  };
}

/** The weights on each GPU, and LoRA's adapter slots beside them. */
function servedWeights(
  shape: ModelShape,
  weightsBytes: number,
  tp: number,
  elementBytes: number,
  settings: CheckedPlanSettings,
): { weights: PlanFigure; lora: LoraMemory | null } {
  const lora = settings.lora
    ? loraMemory(
        shape,
        {
          maxLoras: settings.maxLoras ?? fixedVllmDefault("maxLoras"),
          maxLoraRank: settings.maxLoraRank ?? fixedVllmDefault("maxLoraRank"),
          // vLLM's max_cpu_loras defaults to max_loras.
          maxCpuLoras: settings.maxCpuLoras ?? settings.maxLoras ?? fixedVllmDefault("maxLoras"),
        },
        tp,
        elementBytes,
      )
    : null;
  const base = weightMemory({
    shape,
    checkpointBytes: weightsBytes,
    tensorParallelSize: tp,
    servedDtypeBytes: elementBytes,
    quantization: settings.quantization,
  });
  if (!lora) return { weights: base, lora };
  const rule = `${base.rule}; plus LoRA slots: ${lora.rule}`;
  return { weights: figure(base.bytes + lora.gpuBytes, base.predicts, rule, base.estimate), lora };
}

/** The KV cache vLLM lays out in the memory left: pages, blocks, tokens, concurrency. */
function kvCachePlan(
  shape: ModelShape,
  resolved: ServePlan["resolved"],
  elementBytes: number,
  availableBytes: number,
): { kvCache: PlanKvCache; suggestedMaxModelLen: number; marginBytes: number } {
  const kvBytes = kvCacheDtypeBytes(resolved.kvCacheDtype, elementBytes);
  const specs = layerKvSpecs(shape, resolved.tensorParallelSize, kvBytes, resolved.blockSize);
  const limits = { maxModelLen: resolved.maxModelLen, maxNumBatchedTokens: resolved.maxNumBatchedTokens };
  const capacity = kvCapacity(specs, availableBytes, limits);
  // A suggested max_model_len leaves the plan's own error margin free (estimate.ts).
  const marginBytes = kvMemoryErrorMargin(availableBytes);
  const kvCache = {
    bytesPerToken: kvBytesPerToken(specs),
    groups: capacity.groups,
    numBlocks: capacity.numBlocks,
    tokens: capacity.tokens,
    maxConcurrency: capacity.maxConcurrency,
    bytesPerFullRequest: capacity.bytesPerFullRequest,
    largestFittingModelLen: largestFittingModelLen(specs, Math.max(0, availableBytes), limits),
  };
  return {
    kvCache,
    suggestedMaxModelLen: largestFittingModelLen(specs, Math.max(0, availableBytes - marginBytes), limits),
    marginBytes,
  };
}

/** CUDA graphs and a 150 MiB safety margin come out of the memory above gpu_memory_utilization. */
function headroomNotes(visibleBytes: number, utilization: number, graphBytes: number): string[] {
  const headroom = visibleBytes * (1 - utilization);
  const margin = 150 * 1024 ** 2;
  if (graphBytes + margin <= headroom) return [];
  return [
    `gpu_memory_utilization ${utilization} leaves ${(headroom / 1024 ** 3).toFixed(2)} GiB above it, less than CUDA graphs (~${(graphBytes / 1024 ** 3).toFixed(2)} GiB) and vLLM's 150 MiB margin need: lower it or pass --enforce-eager`,
  ];
}

/**
 * An architecture the plan cannot lay out: the weights from the checkpoint's size and an upper bound on the
 * KV memory (the profile's other parts are unknown); the verdict reads it as it reads any try.
 */
function weightsOnlyProfile(
  architecture: string,
  weightsBytes: number,
  memoryBytes: number,
  gpuName: string | undefined,
  tp: number,
  settings: CheckedPlanSettings,
): { plan: Omit<ServePlan, "gpu" | "verdict">; fit: FitTry } {
  const resolved = resolveSettings(settings, memoryBytes, gpuName, null, tp);
  const visible = cudaVisibleMemory(memoryBytes);
  const requested = requestedMemory(visible, resolved.gpuMemoryUtilization);
  const weights = figure(
    weightsBytes / tp,
    "Model loading took X GiB",
    `the checkpoint's tensors as stored${tp > 1 ? `, split across ${tp} GPUs` : ""}`,
    true,
  );
  const unknown = (predicts: string) =>
    figure(0, predicts, `not estimated: ${architecture} is not an architecture the plan knows`, true);
  const signed = requested.bytes - weights.bytes;
  return {
    plan: {
      vllmCommit: VLLM_PLAN_COMMIT,
      architecture,
      resolved,
      cudaVisibleMemory: visible,
      requestedMemory: requested,
      weights,
      lora: null,
      activationPeak: unknown("Memory profiling: torch peak increase"),
      nonTorchMemory: unknown("Memory profiling: non-torch increase"),
      cudaGraphMemory: unknown("Graph capturing finished in S secs, took X GiB"),
      availableKvMemory: {
        ...figure(
          signed,
          "Available KV cache memory: X GiB",
          "requested memory − weights only: the profile's other parts are unknown for this architecture, so this is an upper bound",
          true,
        ),
        signedBytes: signed,
      },
      kvCache: null,
      cannotGive: [
        `${architecture} is not an architecture the plan knows (it knows ${KNOWN_ARCHITECTURES.join(", ")}): it cannot give the activation peak, "Available KV cache memory", "GPU KV cache size" or "Maximum concurrency"; the weights come from the checkpoint's size`,
      ],
      notes: [],
    },
    fit: {
      tensorParallelSize: tp,
      availableKvBytes: signed,
      bytesPerFullRequest: null,
      largestFittingModelLen: null,
      suggestedMaxModelLen: null,
      marginBytes: kvMemoryErrorMargin(signed),
      maxModelLen: resolved.maxModelLen,
    },
  };
}

/**
 * The settings as vLLM takes them: each one not given gets vLLM's default from the engine-option table
 * (`vllmDefault`); max_model_len the model's own (0 when the plan cannot derive it).
 */
function resolveSettings(
  settings: CheckedPlanSettings,
  memoryBytes: number,
  gpuName: string | undefined,
  derivedMaxModelLen: number | null,
  tp: number,
): ServePlan["resolved"] {
  const gpu = { memoryBytes, name: gpuName };
  return {
    gpuMemoryUtilization: settings.gpuMemoryUtilization ?? fixedVllmDefault("gpuMemoryUtilization"),
    maxModelLen: settings.maxModelLen ?? derivedMaxModelLen ?? 0,
    tensorParallelSize: tp,
    kvCacheDtype: settings.kvCacheDtype ?? fixedVllmDefault("kvCacheDtype"),
    maxNumSeqs: settings.maxNumSeqs ?? (vllmDefaultOf("maxNumSeqs", gpu) as number),
    maxNumBatchedTokens:
      settings.maxNumBatchedTokens ?? (vllmDefaultOf("maxNumBatchedTokens", gpu) as number),
    blockSize: settings.blockSize ?? fixedVllmDefault("blockSize"),
  };
}
