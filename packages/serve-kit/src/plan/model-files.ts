import { checkObject, refuse } from "../internal/validate.js";
import { dtypeBytes, type ModelShape } from "./model-config.js";

/** A model's files, parsed: config.json, and the weights' size from the safetensors index or headers. */
export interface PlanModel {
  /** config.json, parsed. */
  config: unknown;
  /** model.safetensors.index.json, parsed: its metadata.total_size is the weights' size. */
  safetensorsIndex?: unknown;
  /** Or the weights' size in bytes, summed from the safetensors files' headers (a model in one file has no index). */
  weightsBytes?: number;
  /**
   * With weightsBytes: the bytes of the files' `lm_head.weight` (safetensorsLmHeadBytes), which vLLM does not
   * load when config.json ties the output head to the embeddings. The index's weight_map tells by itself.
   */
  lmHeadBytes?: number;
}

/** The tensor vLLM's models skip on loading when tie_word_embeddings is true (AutoWeightsLoader's skip_prefixes). */
const LM_HEAD = "lm_head.weight";

/** The checkpoint's size in bytes. */
export function checkpointBytes(model: PlanModel): number {
  if (model.weightsBytes !== undefined) {
    if (
      typeof model.weightsBytes !== "number" ||
      !Number.isSafeInteger(model.weightsBytes) ||
      model.weightsBytes < 1
    ) {
      refuse("weightsBytes", "must be a whole number of bytes, at least 1", model.weightsBytes);
    }
    return model.weightsBytes;
  }
  if (model.safetensorsIndex === undefined) {
    refuse(
      "model.safetensors.index.json",
      "is needed (or the safetensors files' sizes) to size the weights",
      undefined,
    );
  }
  const index = checkObject(model.safetensorsIndex, "model.safetensors.index.json");
  const metadata = checkObject(index.metadata, "model.safetensors.index.json metadata");
  const total = metadata.total_size;
  if (typeof total !== "number" || !Number.isSafeInteger(total) || total < 1) {
    refuse(
      "model.safetensors.index.json metadata.total_size",
      "must be a whole number of bytes, at least 1",
      total,
    );
  }
  return total;
}

/**
 * The bytes vLLM loads: the checkpoint's, less a stored lm_head.weight when the config ties the head to the
 * embeddings (vLLM's Llama, Qwen2/3, Gemma... load_weights skip "lm_head." then; "Model loading took" counts
 * the embeddings once). Qwen3-0.6B's file stores both, 25% more than vLLM loads.
 */
export function loadedCheckpointBytes(model: PlanModel, shape: ModelShape | undefined): number {
  const total = checkpointBytes(model);
  if (!shape?.tiedEmbeddings) return total;
  if (model.weightsBytes !== undefined) {
    const head = model.lmHeadBytes ?? 0;
    if (!Number.isSafeInteger(head) || head < 0 || head >= total) {
      refuse("lmHeadBytes", `must be a whole number of bytes below weightsBytes (${total})`, head);
    }
    return total - head;
  }
  const index = checkObject(model.safetensorsIndex, "model.safetensors.index.json");
  const map = index.weight_map;
  const stored = map !== null && typeof map === "object" && LM_HEAD in map;
  // The head is stored in the checkpoint's type (quantization methods leave it unquantized).
  return stored ? total - shape.vocabSize * shape.hiddenSize * dtypeBytes(shape.checkpointDtype) : total;
}

/** The bytes of a safetensors header's `lm_head.weight`, or 0 when the file holds none. */
export function safetensorsLmHeadBytes(headerJson: unknown, field: string): number {
  const entry = checkObject(headerJson, field)[LM_HEAD];
  if (entry === undefined) return 0;
  const [start, end] = tensorOffsets(entry, `${field} ${LM_HEAD}`);
  return end - start;
}

/**
 * The bytes of the tensors a safetensors file's header describes: the header is an 8-byte little-endian
 * length and that much JSON mapping each tensor to its data_offsets. Returns the end of the last tensor.
 */
export function safetensorsHeaderBytes(headerJson: unknown, field: string): number {
  const header = checkObject(headerJson, field);
  let end = 0;
  for (const [name, entry] of Object.entries(header)) {
    if (name === "__metadata__") continue;
    end = Math.max(end, tensorOffsets(entry, `${field} ${name}`)[1]);
  }
  return end;
}

function tensorOffsets(entry: unknown, field: string): [number, number] {
  const offsets = checkObject(entry, field).data_offsets;
  if (
    !Array.isArray(offsets) ||
    offsets.length !== 2 ||
    !offsets.every((n) => Number.isSafeInteger(n) && n >= 0)
  ) {
    refuse(`${field}.data_offsets`, "must be [start, end] byte offsets", offsets);
  }
  return offsets as [number, number];
}
