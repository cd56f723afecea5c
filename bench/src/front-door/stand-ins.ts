import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** Chunks in each streamed answer: a short generation, so the front door's per-chunk cost shows. */
export const CHUNKS_PER_STREAM = 16;

export interface StandInKit {
  /** A directory with `vllm` (the C stand-in) to put first on PATH, so `launch` starts it as vLLM. */
  binDir: string;
  standIn: string;
  remove(): void;
}

/** Builds the C stand-in with gcc into a fresh temporary directory, and a `vllm` there that runs it. */
export function buildStandIn(): StandInKit {
  const dir = mkdtempSync(join(tmpdir(), "front-door-bench-"));
  const standIn = join(dir, "stand-in-vllm");
  const source = fileURLToPath(new URL("../../src/front-door/stand-in-vllm.c", import.meta.url));
  execFileSync("gcc", ["-O2", "-Wall", "-o", standIn, source], { stdio: "pipe" });
  const vllm = join(dir, "vllm");
  writeFileSync(vllm, `#!/bin/sh\nSTAND_IN_CHUNKS=${CHUNKS_PER_STREAM} exec ${standIn} "$@"\n`);
  chmodSync(vllm, 0o755);
  return { binDir: dir, standIn, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
