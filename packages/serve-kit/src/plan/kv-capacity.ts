import { type LayerKvSpec, maxMemoryUsageBytes, type RequestLimits } from "./kv-cache-spec.js";
import { cdiv } from "./vllm-commit.js";

// How vLLM turns the memory left for the KV cache into blocks, tokens and concurrency
// (kv_cache_utils.py: get_kv_cache_groups, get_kv_cache_config_from_groups, _report_kv_cache_config,
// get_max_concurrency_for_kv_cache_config, _estimate_max_model_len_from_groups).

/** A KV-cache group: layers sharing one block table. */
export interface KvCacheGroup {
  spec: LayerKvSpec;
  layers: number;
}

export interface KvCapacity {
  groups: readonly KvCacheGroup[];
  /** Layers that share one memory pool (the most layers in a group). */
  groupSize: number;
  numBlocks: number;
  /** vLLM's "GPU KV cache size: N tokens". */
  tokens: number;
  /** vLLM's "Maximum concurrency for L tokens per request: Cx". */
  maxConcurrency: number;
  /** KV memory one request of max_model_len needs; more than the memory means vLLM refuses to start. */
  bytesPerFullRequest: number;
}

const sameSpec = (a: LayerKvSpec, b: LayerKvSpec) =>
  a.kind === b.kind &&
  a.pageBytes === b.pageBytes &&
  a.slidingWindow === b.slidingWindow &&
  a.blockSize === b.blockSize;

/**
 * Groups the layers as vLLM does: one group when every layer has the same spec; otherwise (a hybrid of
 * full and sliding layers with one page size) groups of `group_size` layers per kind, where group_size is
 * the fewest layers of a kind, or the most when that is under 1.5 times the fewest.
 */
export function kvCacheGroups(specs: readonly LayerKvSpec[]): KvCacheGroup[] {
  const kinds: { spec: LayerKvSpec; layers: number }[] = [];
  for (const spec of specs) {
    const kind = kinds.find((entry) => sameSpec(entry.spec, spec));
    if (kind) kind.layers += 1;
    else kinds.push({ spec, layers: 1 });
  }
  if (kinds.length <= 1) return kinds;
  const counts = kinds.map((kind) => kind.layers);
  const fewest = Math.min(...counts);
  const most = Math.max(...counts);
  const groupSize = most < fewest * 1.5 ? most : fewest;
  return kinds.flatMap((kind) => {
    const groups = cdiv(kind.layers, groupSize);
    // layers[i::groups] goes to group i: the first groups take one layer more when it does not divide.
    return Array.from({ length: groups }, (_, index) => ({
      spec: kind.spec,
      layers: Math.floor(kind.layers / groups) + (index < kind.layers % groups ? 1 : 0),
    }));
  });
}

const NO_SPEC: LayerKvSpec = { kind: "full", blockSize: 16, pageBytes: 1, slidingWindow: null };

/** Every group has one page size (vLLM unifies it); a model has at least one layer. */
function pageBytesOf(groups: readonly KvCacheGroup[]): number {
  const first = groups[0];
  if (!first) throw new Error("a model without attention layers has no KV cache to size");
  return first.spec.pageBytes;
}

/** KV memory a request of `limits.maxModelLen` tokens takes, padding groups as vLLM lays them out. */
export function requestKvBytes(groups: readonly KvCacheGroup[], limits: RequestLimits): number {
  if (groups.length === 0) return 0;
  const groupSize = Math.max(...groups.map((group) => group.layers));
  const pageBytes = pageBytesOf(groups);
  if (groups.length === 1) return groupSize * maxMemoryUsageBytes(groups[0]?.spec ?? NO_SPEC, limits);
  const blocks = groups.reduce(
    (sum, group) => sum + cdiv(maxMemoryUsageBytes(group.spec, limits), pageBytes),
    0,
  );
  return groupSize * pageBytes * blocks;
}

/** Blocks, tokens and concurrency for `availableBytes` of KV memory on each GPU. */
export function kvCapacity(
  specs: readonly LayerKvSpec[],
  availableBytes: number,
  limits: RequestLimits,
): KvCapacity {
  const groups = kvCacheGroups(specs);
  const groupSize = Math.max(...groups.map((group) => group.layers));
  const pageBytes = pageBytesOf(groups);
  const numBlocks = Math.max(0, Math.floor(Math.floor(Math.max(0, availableBytes) / pageBytes) / groupSize));
  const minBlockSize = Math.min(...groups.map((group) => group.spec.blockSize));
  const tokens = Math.floor(numBlocks / groups.length) * minBlockSize;
  const perRequest =
    groupSize * groups.reduce((sum, group) => sum + maxMemoryUsageBytes(group.spec, limits), 0);
  const blocksPerRequest = cdiv(perRequest, pageBytes * groupSize);
  return {
    groups,
    groupSize,
    numBlocks,
    tokens,
    maxConcurrency: numBlocks / blocksPerRequest,
    bytesPerFullRequest: requestKvBytes(groups, limits),
  };
}

/** vLLM's estimate of the largest max_model_len whose one request fits `availableBytes` (0 when none does). */
export function largestFittingModelLen(
  specs: readonly LayerKvSpec[],
  availableBytes: number,
  limits: RequestLimits,
): number {
  const groups = kvCacheGroups(specs);
  const fits = (maxModelLen: number) => requestKvBytes(groups, { ...limits, maxModelLen }) <= availableBytes;
  if (!fits(1)) return 0;
  let left = 1;
  let right = limits.maxModelLen;
  let result = 1;
  while (left <= right) {
    const middle = Math.floor((left + right) / 2);
    if (fits(middle)) {
      result = middle;
      left = middle + 1;
    } else {
      right = middle - 1;
    }
  }
  return result;
}
