// Common GPUs and their memory as `nvidia-smi --query-gpu=memory.total` reports it (MiB). CUDA, and so vLLM,
// sees a little less: see CUDA_RESERVED_ESTIMATE_BYTES in memory-profile.ts. The compute capabilities are
// NVIDIA's (developer.nvidia.com/cuda-gpus).

const MIB = 1024 ** 2;

/** A GPU model: the names it goes by and its memory in bytes. */
export interface GpuModel {
  /** The short name used on the command line (`--gpu L4`). */
  name: string;
  /** Other spellings, including what nvidia-smi prints, matched without case. */
  aliases: readonly string[];
  memoryBytes: number;
  /** CUDA compute capability, major.minor as a number (7.5 for a T4): bfloat16 needs 8.0 or more. */
  computeCapability: number;
}

const gpu = (name: string, mib: number, computeCapability: number, aliases: string[]): GpuModel => ({
  name,
  aliases,
  memoryBytes: mib * MIB,
  computeCapability,
});

/** The table: name -> memory and compute capability. */
export const GPU_MODELS: readonly GpuModel[] = [
  gpu("H200", 143771, 9.0, ["NVIDIA H200", "H200-141GB"]),
  gpu("H100-NVL", 95830, 9.0, ["NVIDIA H100 NVL", "H100 NVL", "H100-94GB"]),
  gpu("H100", 81559, 9.0, [
    "NVIDIA H100 80GB HBM3",
    "H100-80GB",
    "H100-SXM",
    "NVIDIA H100 PCIe",
    "H100-PCIe",
  ]),
  gpu("A100-80GB", 81920, 8.0, ["NVIDIA A100-SXM4-80GB", "NVIDIA A100 80GB PCIe", "A100-SXM4-80GB"]),
  gpu("A100-40GB", 40960, 8.0, ["NVIDIA A100-SXM4-40GB", "NVIDIA A100-PCIE-40GB", "A100-SXM4-40GB", "A100"]),
  gpu("L40S", 46068, 8.9, ["NVIDIA L40S"]),
  gpu("L40", 46068, 8.9, ["NVIDIA L40"]),
  gpu("RTX-A6000", 49140, 8.6, ["NVIDIA RTX A6000", "A6000"]),
  gpu("L4", 23034, 8.9, ["NVIDIA L4"]),
  gpu("A10G", 23028, 8.6, ["NVIDIA A10G"]),
  gpu("A10", 23028, 8.6, ["NVIDIA A10"]),
  gpu("RTX-4090", 24564, 8.9, ["NVIDIA GeForce RTX 4090", "RTX 4090", "4090"]),
  gpu("RTX-3090", 24576, 8.6, ["NVIDIA GeForce RTX 3090", "RTX 3090", "3090"]),
  gpu("V100-32GB", 32768, 7.0, ["Tesla V100-SXM2-32GB", "Tesla V100-PCIE-32GB", "V100"]),
  gpu("V100-16GB", 16384, 7.0, ["Tesla V100-SXM2-16GB", "Tesla V100-PCIE-16GB"]),
  gpu("T4", 15360, 7.5, ["Tesla T4", "NVIDIA T4"]),
];

const normalize = (text: string) => text.toLowerCase().replace(/[\s_]+/g, "-");

/** The table's entry for a name or alias (case and spaces ignored), or undefined. */
export function findGpuModel(name: string): GpuModel | undefined {
  const wanted = normalize(name);
  return GPU_MODELS.find(
    (model) => normalize(model.name) === wanted || model.aliases.some((alias) => normalize(alias) === wanted),
  );
}
