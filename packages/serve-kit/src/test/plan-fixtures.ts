// The plan's test data (src/plan/fixtures, described in its SOURCES.md): real models' files and published
// vLLM start-up logs, read the same way by every test that holds the plan to them. Tests only.

import { readFileSync } from "node:fs";
import { findGpuModel } from "../plan/gpus.js";
import type { PlanModel } from "../plan/model-files.js";
import type { PlanGpu } from "../plan/plan-serve.js";
import type { PlanSettings } from "../plan/settings.js";

const FIXTURES = new URL("../plan/fixtures/", import.meta.url);

export const GIB = 1024 ** 3;

export const readFixture = (path: string): unknown =>
  JSON.parse(readFileSync(new URL(path, FIXTURES), "utf8"));

/** A fixture model's config.json and trimmed safetensors index. */
export const fixtureModel = (name: string): PlanModel & { config: Record<string, unknown> } => ({
  config: readFixture(`${name}/config.json`) as Record<string, unknown>,
  safetensorsIndex: readFixture(`${name}/model.safetensors.index.json`),
});

/** `count` GPUs of the table's model `name`. */
export function gpuNamed(name: string, count = 1): PlanGpu & { name: string } {
  const found = findGpuModel(name);
  if (!found) throw new Error(`no GPU ${name} in the table`);
  return { name: found.name, memoryBytes: found.memoryBytes, count };
}

/** One published start-up log: the setup, what vLLM logged (only what it printed), and where it was published. */
export interface PublishedLog {
  model: string;
  gpu: string;
  gpus: number;
  flags: string;
  /** The flags as plan settings, or null for a setup the plan does not model (pipeline parallel). */
  settings: PlanSettings | null;
  /** What vLLM did: started, or refused to start. */
  outcome?: "started" | "refused";
  logged: {
    cudaTotalGiB?: number;
    weightsGiB?: number;
    availableKvGiB?: number;
    kvTokens?: number;
    maxConcurrency?: number;
    availableKvGiBPerStage?: number[];
    layersPerStage?: number[];
  };
  source: string;
}

export const PUBLISHED_LOGS = readFixture("vllm-logs.json") as PublishedLog[];

/** The logs of setups the plan models (single stage), each with its settings. */
export const PLANNED_LOGS = PUBLISHED_LOGS.filter(
  (log): log is PublishedLog & { settings: PlanSettings } => log.settings !== null,
);
