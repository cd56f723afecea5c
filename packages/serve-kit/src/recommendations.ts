import type { Recommendations, RecommendedExperiment, RecommendedModel } from "@finetune-studio/types";
import { ServeConfigError } from "./errors.js";
import { normalizeServeOptions } from "./internal/normalize.js";
import { checkKnownKeys, checkObject, checkReference, refuse } from "./internal/validate.js";
import {
  ENGINE_OPTION_LIST,
  engineOptionsFor,
  type FullEngineOptions,
  type LoraEngineOptions,
} from "./options/engine-options.js";
import type { FullServeOptions, LoraServeOptions, ServeOptions } from "./serve-options.js";

/** Where the fine-tuned weights are, which also says how they are served. One shape or the other. */
export type FineTunedWeights =
  | {
      /** Path or hub repository of a fully fine-tuned checkpoint. */
      modelPath: string;
      servedModelName?: string;
      adapterPath?: never;
      adapterName?: never;
      maxLoraRank?: never;
      maxLoras?: never;
    }
  | {
      /** Path or hub repository of the LoRA adapter. */
      adapterPath: string;
      /** The name clients send; by default the last segment of `adapterPath`. */
      adapterName?: string;
      maxLoraRank?: number;
      maxLoras?: number;
      modelPath?: never;
      servedModelName?: never;
    };

/** vLLM's engine options (`options/engine-options.ts`): the LoRA-only ones sit with the adapter above. */
export type ServeFromRecommendationsOptions = FineTunedWeights &
  FullEngineOptions & {
    /**
     * The model mapping table: the studio's `base_model_id` -> the hub id (or local path) vLLM loads. Without
     * it the studio's id is used as is.
     */
    baseModelMapping?: Readonly<Record<string, string>>;
    host?: string;
    port?: number;
    apiKey?: string;
    extraArgs?: readonly string[];
  };

const OPTION_KEYS = [
  "modelPath",
  "servedModelName",
  "adapterPath",
  "adapterName",
  "baseModelMapping",
  "host",
  "port",
  "apiKey",
  "extraArgs",
  ...ENGINE_OPTION_LIST.map((option) => option.key),
];

/** Every option of either shape, for reading a value that may be absent. */
type AnyOptions = LoraEngineOptions & {
  modelPath?: string;
  servedModelName?: string;
  adapterPath?: string;
  adapterName?: string;
  baseModelMapping?: unknown;
  host?: string;
  port?: number;
  apiKey?: string;
  extraArgs?: readonly string[];
};

/** The engine options given for a serve of this kind; the builder checks them. */
function engineOptionsOf(opts: AnyOptions, kind: "full" | "lora"): LoraEngineOptions {
  return pickDefined(
    Object.fromEntries(engineOptionsFor(kind).map((option) => [option.key, opts[option.key]])),
  );
}

interface Choice {
  /** Where in the recommendations the choice was found, for error messages. */
  field: string;
  baseModelId: unknown;
  /** From the experiment's `lora` flag; undefined for a recommended model, which has both kinds. */
  lora: boolean | undefined;
}

/**
 * Turns the studio's recommendations for a snapshot into `buildServeCommand` input: it picks the recommended
 * experiment (or, when none, the recommended model), serves LoRA or full as the experiment says, and maps the
 * studio's base model id to the id vLLM loads. Throws a `ServeConfigError` while the recommendations are
 * `processing`, when they `failed`, or when a base model is missing from the mapping.
 */
export function serveConfigFromRecommendations(
  recommendations: Recommendations,
  options: ServeFromRecommendationsOptions,
): ServeOptions {
  const recs = checkObject(recommendations, "recommendations");
  const opts: AnyOptions = checkObject(options, "options");
  checkKnownKeys(opts as Record<string, unknown>, OPTION_KEYS, "serveConfigFromRecommendations");
  checkStatus(recs);
  const choice = chooseRecommendation(recs);
  const wantsLora = chooseKind(choice, opts);
  const common = pickDefined({
    host: opts.host,
    port: opts.port,
    apiKey: opts.apiKey,
    extraArgs: opts.extraArgs,
  });
  if (!wantsLora) {
    const full: FullServeOptions = {
      kind: "full",
      model: checkReference(opts.modelPath, "modelPath"),
      ...pickDefined({ servedModelName: opts.servedModelName }),
      ...engineOptionsOf(opts, "full"),
      ...common,
    };
    normalizeServeOptions(full);
    return full;
  }
  const adapterPath = checkReference(opts.adapterPath, "adapterPath");
  const lora: LoraServeOptions = {
    kind: "lora",
    baseModel: mapBaseModel(choice, opts.baseModelMapping),
    adapters: [{ name: opts.adapterName ?? adapterNameFromPath(adapterPath), path: adapterPath }],
    ...engineOptionsOf(opts, "lora"),
    ...common,
  };
  // Checked here, so a bad option fails where it was given rather than when the command is built.
  normalizeServeOptions(lora);
  return lora;
}

function checkStatus(recs: Record<string, unknown>): void {
  const snapshot = typeof recs.snapshot_id === "string" ? ` for snapshot ${recs.snapshot_id}` : "";
  if (recs.status === "processing") {
    refuse(
      "recommendations.status",
      `must be "completed": the studio is still computing the recommendations${snapshot}; wait and read them again`,
      recs.status,
    );
  }
  if (recs.status === "failed") {
    refuse(
      "recommendations.status",
      `must be "completed": the studio failed to compute recommendations${snapshot}, so there is nothing to serve`,
      recs.status,
    );
  }
  if (recs.status !== "completed") {
    refuse("recommendations.status", 'must be "completed"', recs.status);
  }
}

function chooseRecommendation(recs: Record<string, unknown>): Choice {
  const experiments = asArray<RecommendedExperiment>(recs.recommended_experiments);
  const experimentIndex = experiments.findIndex((experiment) => experiment?.recommended === true);
  const experiment = experiments[experimentIndex];
  if (experiment !== undefined) {
    const field = `recommendations.recommended_experiments[${experimentIndex}]`;
    if (typeof experiment.lora !== "boolean") {
      refuse(`${field}.lora`, "must be true or false to tell LoRA from full", experiment.lora);
    }
    return { field, baseModelId: experiment.base_model_id, lora: experiment.lora };
  }
  const models = asArray<RecommendedModel>(recs.recommended_models);
  const modelIndex = models.findIndex((model) => model?.recommended === true);
  const model = models[modelIndex];
  if (model !== undefined) {
    return {
      field: `recommendations.recommended_models[${modelIndex}]`,
      baseModelId: model.base_model_id,
      lora: undefined,
    };
  }
  throw new ServeConfigError(
    "recommendations",
    "must hold an experiment or a model with recommended: true",
    `${experiments.length} experiments and ${models.length} models, none recommended`,
  );
}

/** LoRA or full: the experiment decides; for a recommended model, the weights given decide. */
function chooseKind(choice: Choice, opts: AnyOptions): boolean {
  const hasModel = opts.modelPath !== undefined;
  const hasAdapter = opts.adapterPath !== undefined;
  if (hasModel === hasAdapter) {
    throw new ServeConfigError(
      "options",
      "must give either modelPath (a full fine-tune) or adapterPath (a LoRA adapter)",
      hasModel ? "both" : "neither",
    );
  }
  if (choice.lora === true && !hasAdapter) {
    throw new ServeConfigError(
      "adapterPath",
      `is required: ${choice.field} is a LoRA fine-tune, so serve its adapter on the base model`,
      "modelPath instead",
    );
  }
  if (choice.lora === false && !hasModel) {
    throw new ServeConfigError(
      "modelPath",
      `is required: ${choice.field} is a full fine-tune, so serve the fine-tuned checkpoint`,
      "adapterPath instead",
    );
  }
  return hasAdapter;
}

function mapBaseModel(choice: Choice, mapping: unknown): string {
  const id = choice.baseModelId;
  if (typeof id !== "string" || id === "") {
    refuse(`${choice.field}.base_model_id`, "must be a non-empty string", id);
  }
  if (mapping === undefined) return checkReference(id, `${choice.field}.base_model_id`);
  const table = checkObject(mapping, "baseModelMapping");
  const mapped = Object.hasOwn(table, id) ? table[id] : undefined;
  if (mapped === undefined) {
    const known = Object.keys(table);
    throw new ServeConfigError(
      "baseModelMapping",
      `must map the studio's base model ${JSON.stringify(id)} to the id vLLM loads (add "${id}": "<org>/<model>")`,
      known.length === 0 ? "an empty table" : `a table of ${known.map((k) => JSON.stringify(k)).join(", ")}`,
    );
  }
  return checkReference(mapped, `baseModelMapping[${JSON.stringify(id)}]`);
}

/** `support-lora` from `/models/adapters/support-lora/` or `acme/support-lora`, made a valid adapter name. */
export function adapterNameFromPath(path: string): string {
  const segment = path.replace(/\/+$/, "").split("/").pop() ?? "";
  const name = segment.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+/, "");
  return name === "" ? "adapter" : name;
}

function asArray<T>(value: unknown): (T | undefined)[] {
  return Array.isArray(value) ? (value as (T | undefined)[]) : [];
}

function pickDefined<T extends Record<string, unknown>>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<T>;
}
