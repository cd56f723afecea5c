import { checkKnownKeys, checkObject, checkSwitch, optional } from "../internal/validate.js";
import {
  ENGINE_OPTION_LIST,
  type LoraEngineOptions,
  normalizeEngineOptions,
  VLLM_KV_CACHE_DTYPES,
} from "../options/engine-options.js";

/**
 * The vLLM settings the plan reads: the engine options of a serve (`options/engine-options.ts`), checked by
 * the same table, so a serve's options can be planned as they are. Each defaults as vLLM's does; the ones
 * the memory does not depend on (prefix caching, quantization of a quantized checkpoint) change nothing.
 */
export type PlanSettings = LoraEngineOptions & {
  /** LoRA serving (--enable-lora); also on when a LoRA-only option (maxLoras, maxLoraRank, maxCpuLoras) is given. */
  enableLora?: boolean;
};

/** The settings checked, and whether LoRA is on. */
export interface CheckedPlanSettings extends LoraEngineOptions {
  lora: boolean;
}

/** The KV cache's types the plan knows: the engine option's. */
export const KV_CACHE_DTYPES = VLLM_KV_CACHE_DTYPES;

/** Checks the settings from plain JavaScript with the engine-option table's own rules. */
export function checkPlanSettings(raw: unknown): CheckedPlanSettings {
  const input = checkObject(raw ?? {}, "settings");
  checkKnownKeys(
    input,
    [...ENGINE_OPTION_LIST.map((option) => option.key), "enableLora"],
    "the plan's settings",
  );
  optional(input.enableLora, checkSwitch, "enableLora");
  const engine = normalizeEngineOptions(input, "lora");
  const loraOption = ENGINE_OPTION_LIST.some((option) => option.loraOnly && engine[option.key] !== undefined);
  return { ...engine, lora: input.enableLora === true || loraOption };
}
