import { checkObject, refuse } from "../internal/validate.js";

/** A model's files, parsed: config.json, and the weights' size from the safetensors index or headers. */
export interface PlanModel {
  /** config.json, parsed. */
  config: unknown;
  /** model.safetensors.index.json, parsed: its metadata.total_size is the weights' size. */
  safetensorsIndex?: unknown;
  /** Or the weights' size in bytes, summed from the safetensors files' headers (a model in one file has no index). */
  weightsBytes?: number;
}

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
 * The bytes of the tensors a safetensors file's header describes: the header is an 8-byte little-endian
 * length and that much JSON mapping each tensor to its data_offsets. Returns the end of the last tensor.
 */
export function safetensorsHeaderBytes(headerJson: unknown, field: string): number {
  const header = checkObject(headerJson, field);
  let end = 0;
  for (const [name, entry] of Object.entries(header)) {
    if (name === "__metadata__") continue;
    const offsets = checkObject(entry, `${field} ${name}`).data_offsets;
    if (
      !Array.isArray(offsets) ||
      offsets.length !== 2 ||
      !offsets.every((n) => Number.isSafeInteger(n) && n >= 0)
    ) {
      refuse(`${field} ${name}.data_offsets`, "must be [start, end] byte offsets", offsets);
    }
    end = Math.max(end, offsets[1] as number);
  }
  return end;
}
