import { figure, type PlanFigure } from "./estimate.js";
import { dtypeBytes, type ModelShape } from "./model-config.js";

// The weights' memory on each GPU: vLLM's "Model loading took X GiB". The checkpoint's own size is the best
// witness of it (the safetensors index's metadata.total_size, or the sum of the files' tensors), less what
// vLLM does not load (model-files.ts: loadedCheckpointBytes).

/** Methods that quantize a 16-bit checkpoint while loading it, and the bits per weight they keep. */
const ON_THE_FLY_BITS: Record<string, number> = { fp8: 8, bitsandbytes: 4, experts_int8: 8 };

export interface WeightInput {
  shape: ModelShape;
  checkpointBytes: number;
  tensorParallelSize: number;
  /** Bytes of the type vLLM serves in (2 for bfloat16/float16, 4 for float32). */
  servedDtypeBytes: number;
  /** --quantization, when given. */
  quantization: string | undefined;
}

export function weightMemory(input: WeightInput): PlanFigure {
  const { shape, checkpointBytes, tensorParallelSize: tp } = input;
  const predicts = "Model loading took X GiB";
  const split = tp > 1 ? `, split across ${tp} GPUs (tensor parallel shards every layer)` : "";
  if (shape.quantization?.method === "mxfp4" && shape.moe) {
    const padding = mxfp4ExpertPadding(shape);
    return figure(
      (checkpointBytes + padding) / tp,
      predicts,
      `the mxfp4 checkpoint's tensors as stored, plus ${(padding / 1024 ** 3).toFixed(2)} GiB of expert padding (each expert's intermediate size rounded up to 256)${split}`,
      true,
    );
  }
  if (shape.quantization) {
    return figure(
      checkpointBytes / tp,
      predicts,
      `the ${shape.quantization.method} checkpoint's tensors as stored${split}`,
      false,
    );
  }
  const onTheFly = input.quantization === undefined ? undefined : ON_THE_FLY_BITS[input.quantization];
  const stored = dtypeBytes(shape.checkpointDtype);
  const scale = input.servedDtypeBytes / stored;
  if (onTheFly !== undefined) {
    // Embeddings and the output head stay in the served type; the linear layers shrink to `bits`.
    const embeddings = shape.vocabSize * shape.hiddenSize * stored * (shape.tiedEmbeddings ? 1 : 2);
    const linear = checkpointBytes - embeddings;
    const bytes = (embeddings * scale + linear * (onTheFly / 8 / stored)) / tp;
    return figure(
      bytes,
      predicts,
      `--quantization ${input.quantization}: linear layers at ${onTheFly} bits, embeddings and head at ${input.servedDtypeBytes} bytes${split}`,
      true,
    );
  }
  const tied = shape.tiedEmbeddings
    ? " (the head tied to the embeddings counted once, as vLLM loads it)"
    : "";
  const cast =
    scale === 1
      ? ""
      : ` converted from ${shape.checkpointDtype} (${stored} bytes) to ${input.servedDtypeBytes} bytes`;
  const unknownQuant =
    input.quantization === undefined
      ? ""
      : ` (--quantization ${input.quantization} is not one the plan sizes; checkpoint size used)`;
  return figure(
    (checkpointBytes * scale) / tp,
    predicts,
    `the checkpoint's tensors${tied}${cast}${split}${unknownQuant}`,
    input.quantization !== undefined,
  );
}

/** mxfp4 stores 4 bits per weight and one 8-bit scale per 32 weights. */
const MXFP4_BYTES_PER_WEIGHT = 0.5 + 1 / 32;

/**
 * vLLM pads mxfp4 experts for its kernels (Mxfp4MoEMethod.create_weights rounds the intermediate size up
 * to 256 for FlashInfer's backends; on Hopper the Triton backend's swizzled layout, _swizzle_mxfp4, grows
 * them by as much: gpt-oss-20b loads 13.47 GiB on an H100 for 12.82 GiB stored, gpt-oss-120b 64.38 for
 * 60.77). The estimate: the experts' gate, up and down weights at the padded width, less as stored.
 */
function mxfp4ExpertPadding(shape: ModelShape): number {
  const moe = shape.moe;
  if (!moe) return 0;
  const width = moe.expertIntermediateSize;
  const extra = Math.ceil(width / 256) * 256 - width;
  return shape.layers * moe.experts * 3 * shape.hiddenSize * extra * MXFP4_BYTES_PER_WEIGHT;
}
