import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The UUID the stand-in nvidia-smi gives GPU `index`. */
export function standInGpuUuid(index: number): string {
  return `GPU-${String(index).padStart(8, "0")}-2222-3333-4444-555555555555`;
}

/**
 * Writes `dir`/nvidia-smi, a stand-in whose `-L` lists `count` GPUs and whose `--query-compute-apps` says a
 * process (a fine-tuning job) holds memory on each GPU of `busy`: put `dir` first on PATH.
 */
export function writeStandInNvidiaSmi(dir: string, count: number, busy: readonly number[] = []): void {
  const lines = Array.from(
    { length: count },
    (_, i) => `echo 'GPU ${i}: NVIDIA H100 (UUID: ${standInGpuUuid(i)})'`,
  );
  const apps = busy.map((i) => `echo '${standInGpuUuid(i)}'`);
  const script = `case "$1" in\n--query-compute-apps*)\n${apps.join("\n")}\n;;\n*)\n${lines.join("\n")}\n;;\nesac`;
  writeFileSync(join(dir, "nvidia-smi"), `#!/bin/sh\n${script}\n`);
  chmodSync(join(dir, "nvidia-smi"), 0o755);
}
