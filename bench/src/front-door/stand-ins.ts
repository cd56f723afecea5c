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
  /** The paced-stream load client (stream-client.c). */
  streamClient: string;
  remove(): void;
}

/** `gcc -O2` on one of this folder's C files, into `dir`. */
function compile(dir: string, name: string): string {
  const binary = join(dir, name);
  const source = fileURLToPath(new URL(`../../src/front-door/${name}.c`, import.meta.url));
  execFileSync("gcc", ["-O2", "-Wall", "-o", binary, source], { stdio: "pipe" });
  return binary;
}

/**
 * Builds the C stand-in and the stream client with gcc into a fresh temporary directory, and a `vllm` there
 * that runs the stand-in (paced when STAND_IN_PACE_MS is in its environment).
 */
export function buildStandIn(): StandInKit {
  const dir = mkdtempSync(join(tmpdir(), "front-door-bench-"));
  const standIn = compile(dir, "stand-in-vllm");
  const streamClient = compile(dir, "stream-client");
  const vllm = join(dir, "vllm");
  writeFileSync(vllm, `#!/bin/sh\nSTAND_IN_CHUNKS=${CHUNKS_PER_STREAM} exec ${standIn} "$@"\n`);
  chmodSync(vllm, 0o755);
  return { binDir: dir, standIn, streamClient, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
