import type { ModelShape } from "./model-config.js";

// LoRA's memory. vLLM allocates, while loading the model, a stacked A and B buffer for each LoRA-capable
// linear layer with room for max_loras adapters at max_lora_rank (so it shows in "Model loading took");
// max_cpu_loras adapters are kept in host memory.

export interface LoraSettings {
  maxLoras: number;
  maxLoraRank: number;
  /** vLLM's default is max_loras. */
  maxCpuLoras: number;
}

export interface LoraMemory {
  /** GPU bytes on each GPU for the adapter slots. */
  gpuBytes: number;
  /** Host bytes for the CPU adapter cache at its largest. */
  cpuBytes: number;
  /** One adapter at max_lora_rank, all GPUs together. */
  adapterBytes: number;
  rule: string;
}

/** The (in, out) sizes of one decoder layer's LoRA-capable linear layers: attention and, when dense, the MLP. */
function loraModules(shape: ModelShape): [number, number][] {
  const h = shape.hiddenSize;
  const q = shape.attentionHeads * shape.headSize;
  const kv = shape.kvHeads * shape.headSize;
  const attention: [number, number][] = [
    [h, q + 2 * kv],
    [q, h],
  ];
  if (shape.moe) return attention;
  const ffn = shape.intermediateSize;
  return [...attention, [h, 2 * ffn], [ffn, h]];
}

export function loraMemory(
  shape: ModelShape,
  settings: LoraSettings,
  tp: number,
  elementBytes: number,
): LoraMemory {
  const perLayer = loraModules(shape).reduce((sum, [input, output]) => sum + input + output, 0);
  const adapterBytes = perLayer * shape.layers * settings.maxLoraRank * elementBytes;
  const scope = shape.moe ? "attention layers (experts not counted)" : "attention and MLP layers";
  return {
    gpuBytes: (settings.maxLoras * adapterBytes) / tp,
    cpuBytes: settings.maxCpuLoras * adapterBytes,
    adapterBytes,
    rule: `max_loras (${settings.maxLoras}) × rank ${settings.maxLoraRank} × (in + out) of the ${scope}, ${elementBytes} bytes each${tp > 1 ? `, split across ${tp} GPUs` : ""}; host: max_cpu_loras (${settings.maxCpuLoras}) adapters`,
  };
}
