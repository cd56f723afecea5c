import type { Recommendations } from "@finetune-studio/types";
import { describe, expect, it } from "vitest";
import {
  buildServeCommand,
  ServeConfigError,
  type ServeFromRecommendationsOptions,
  serveConfigFromRecommendations,
} from "./index.js";
import { adapterNameFromPath } from "./recommendations.js";

const snapshot_id = "3b9d6c1e-2f4a-4b8e-9c7d-5a1f0e2d3c4b";
const mapping = {
  "llama-3.1-8b-instruct": "meta-llama/Llama-3.1-8B-Instruct",
  "qwen-2.5-7b": "Qwen/Qwen2.5-7B-Instruct",
};

const experiment = (lora: boolean, recommended: boolean, base_model_id = "llama-3.1-8b-instruct") => ({
  base_model_id,
  batch_size: 8,
  learning_rate_multiplier: 1,
  n_epochs: 3,
  lora,
  recommended,
  reason_for_recommendation: null,
});

const completed = (extra: Partial<Recommendations>): Recommendations => ({
  snapshot_id,
  status: "completed",
  ...extra,
});

describe("serveConfigFromRecommendations", () => {
  it("serves the recommended LoRA experiment's adapter on the mapped base model", () => {
    const recs = completed({
      recommended_experiments: [experiment(false, false, "qwen-2.5-7b"), experiment(true, true)],
    });
    const options = serveConfigFromRecommendations(recs, {
      adapterPath: "/models/adapters/support-lora/",
      baseModelMapping: mapping,
      maxLoraRank: 32,
      port: 8001,
    });
    expect(options).toEqual({
      kind: "lora",
      baseModel: "meta-llama/Llama-3.1-8B-Instruct",
      adapters: [{ name: "support-lora", path: "/models/adapters/support-lora/" }],
      maxLoraRank: 32,
      port: 8001,
    });
    expect(buildServeCommand(options).client.model).toBe("support-lora");
  });

  it("serves the recommended full experiment's checkpoint", () => {
    const recs = completed({ recommended_experiments: [experiment(false, true)] });
    expect(
      serveConfigFromRecommendations(recs, { modelPath: "acme/support-8b", servedModelName: "support" }),
    ).toEqual({
      kind: "full",
      model: "acme/support-8b",
      servedModelName: "support",
    });
  });

  it("falls back to the recommended model, served as the weights given say", () => {
    const recs = completed({
      recommended_experiments: [],
      recommended_models: [{ base_model_id: "qwen-2.5-7b", recommended: true }],
    });
    expect(
      serveConfigFromRecommendations(recs, { adapterPath: "acme/qwen-support", baseModelMapping: mapping }),
    ).toEqual({
      kind: "lora",
      baseModel: "Qwen/Qwen2.5-7B-Instruct",
      adapters: [{ name: "qwen-support", path: "acme/qwen-support" }],
    });
    expect(serveConfigFromRecommendations(recs, { modelPath: "/ckpt" })).toEqual({
      kind: "full",
      model: "/ckpt",
    });
  });

  it("uses the studio's id as is when no mapping table is given", () => {
    const recs = completed({
      recommended_experiments: [experiment(true, true, "meta-llama/Llama-3.1-8B-Instruct")],
    });
    const options = serveConfigFromRecommendations(recs, { adapterPath: "/a", adapterName: "mine" });
    expect(options).toMatchObject({
      baseModel: "meta-llama/Llama-3.1-8B-Instruct",
      adapters: [{ name: "mine" }],
    });
  });

  const lora = completed({ recommended_experiments: [experiment(true, true)] });
  it.each<[string, unknown, ServeFromRecommendationsOptions, string, RegExp]>([
    [
      "processing",
      { snapshot_id, status: "processing" },
      { adapterPath: "/a" },
      "recommendations.status",
      /still computing/,
    ],
    [
      "failed",
      { snapshot_id, status: "failed" },
      { adapterPath: "/a" },
      "recommendations.status",
      /failed to compute/,
    ],
    [
      "an unknown status",
      { snapshot_id, status: "queued" },
      { adapterPath: "/a" },
      "recommendations.status",
      /completed/,
    ],
    ["not an object", null, { adapterPath: "/a" }, "recommendations", /must be an object/],
    [
      "nothing recommended",
      completed({ recommended_experiments: [experiment(true, false)] }),
      { adapterPath: "/a" },
      "recommendations",
      /recommended: true/,
    ],
    [
      "null lists",
      completed({ recommended_experiments: null, recommended_models: null }),
      { adapterPath: "/a" },
      "recommendations",
      /recommended: true/,
    ],
    [
      "an unmapped base model",
      lora,
      { adapterPath: "/a", baseModelMapping: { "qwen-2.5-7b": "Qwen/x" } },
      "baseModelMapping",
      /"llama-3.1-8b-instruct"/,
    ],
    [
      "an empty mapping",
      lora,
      { adapterPath: "/a", baseModelMapping: {} },
      "baseModelMapping",
      /add "llama-3.1-8b-instruct"/,
    ],
    [
      "a mapping to nothing",
      lora,
      { adapterPath: "/a", baseModelMapping: { "llama-3.1-8b-instruct": "" } },
      'baseModelMapping["llama-3.1-8b-instruct"]',
      /empty/,
    ],
    [
      "an inherited mapping key",
      completed({ recommended_experiments: [experiment(true, true, "toString")] }),
      { adapterPath: "/a", baseModelMapping: {} },
      "baseModelMapping",
      /toString/,
    ],
    ["a model path for a LoRA experiment", lora, { modelPath: "/m" }, "adapterPath", /LoRA fine-tune/],
    [
      "an adapter for a full experiment",
      completed({ recommended_experiments: [experiment(false, true)] }),
      { adapterPath: "/a" },
      "modelPath",
      /full fine-tune/,
    ],
    ["neither path", lora, {} as ServeFromRecommendationsOptions, "options", /either modelPath/],
    [
      "both paths",
      lora,
      { adapterPath: "/a", modelPath: "/m" } as unknown as ServeFromRecommendationsOptions,
      "options",
      /either modelPath/,
    ],
    [
      "an experiment without lora flag",
      completed({ recommended_experiments: [{ recommended: true, base_model_id: "x" }] }),
      { adapterPath: "/a" },
      "recommendations.recommended_experiments[0].lora",
      /true or false/,
    ],
    [
      "an experiment without base model",
      completed({ recommended_experiments: [{ recommended: true, lora: true }] }),
      { adapterPath: "/a" },
      "recommendations.recommended_experiments[0].base_model_id",
      /non-empty/,
    ],
    ["a bad adapter path", lora, { adapterPath: "-x", baseModelMapping: mapping }, "adapterPath", /'-'/],
    [
      "a bad adapter name",
      lora,
      { adapterPath: "/a", adapterName: "a b", baseModelMapping: mapping },
      "adapters[0].name",
      /A-Za-z/,
    ],
    ["a bad port", lora, { adapterPath: "/a", baseModelMapping: mapping, port: 0 }, "port", /1 to 65535/],
    [
      "an unknown option",
      lora,
      { adapterPath: "/a", model: "x" } as ServeFromRecommendationsOptions,
      "model",
      /not an option/,
    ],
  ])("refuses %s", (_name, recs, options, field, rule) => {
    let error: unknown;
    try {
      serveConfigFromRecommendations(recs as Recommendations, options);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ServeConfigError);
    expect((error as ServeConfigError).field).toBe(field);
    expect((error as ServeConfigError).message).toMatch(rule);
  });
});

describe("adapterNameFromPath", () => {
  it.each([
    ["/models/adapters/support-lora", "support-lora"],
    ["/models/adapters/support-lora//", "support-lora"],
    ["acme/Support LoRA v2", "Support-LoRA-v2"],
    ["/", "adapter"],
    ["--x", "x"],
  ])("%s -> %s", (path, want) => {
    expect(adapterNameFromPath(path)).toBe(want);
  });
});
