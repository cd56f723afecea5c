import { describe, expect, it } from "vitest";
import { buildDockerCommand } from "../docker-command.js";
import { ServeConfigError } from "../errors.js";
import { serveConfigFromRecommendations } from "../recommendations.js";
import { buildServeCommand } from "../serve-command.js";
import type { ServeOptions } from "../serve-options.js";
import { buildStackValues } from "../stack/stack-values.js";
import { VLLM_STACK_KEYS } from "../test/vllm-stack-chart.js";
import {
  ENGINE_OPTION_LIST,
  type EngineOptionValues,
  VLLM_QUANTIZATION_METHODS,
  vllmDefaultOf,
  vllmDefaultText,
} from "./engine-options.js";

// The table is whole: each entry has every part, and every option reaches every path (the serve command,
// docker, the production-stack values, the recommendations) from its entry alone.

/** A valid value for each option, and one its rule refuses. */
const SAMPLES: { [K in keyof EngineOptionValues]: { good: EngineOptionValues[K]; bad: unknown } } = {
  maxLoraRank: { good: 64, bad: 48 },
  maxLoras: { good: 4, bad: 0 },
  maxModelLen: { good: 8192, bad: 1.5 },
  dtype: { good: "bfloat16", bad: "fp8" },
  gpuMemoryUtilization: { good: 0.85, bad: 1.2 },
  tensorParallelSize: { good: 2, bad: -1 },
  maxNumSeqs: { good: 64, bad: "many" },
  enablePrefixCaching: { good: false, bad: "yes" },
  // vLLM's parser refuses a method it does not know: so does the table, with the list.
  quantization: { good: "awq", bad: "bogus" },
  kvCacheDtype: { good: "fp8", bad: "int4" },
  maxCpuLoras: { good: 8, bad: 0 },
  maxNumBatchedTokens: { good: 16384, bad: 0.5 },
  enforceEager: { good: true, bad: "on" },
  blockSize: { good: 128, bad: 24 },
};

const lora = (extra: object): ServeOptions => ({
  kind: "lora",
  baseModel: "meta-llama/Llama-3.1-8B-Instruct",
  adapters: [{ name: "support", path: "acme/support-lora" }],
  ...extra,
});
const full = (extra: object): ServeOptions => ({ kind: "full", model: "acme/m", ...extra });

describe.each(ENGINE_OPTION_LIST.map((option) => [option.key, option] as const))(
  "the %s entry",
  (key, option) => {
    const sample = SAMPLES[key];
    const serve = option.loraOnly ? lora : full;
    const words = (option.argv as (value: unknown) => string[])(sample.good);

    it("has every part: a vLLM flag, its words, an owned status, a CLI line, a chart key or null", () => {
      expect(option.key).toBe(key);
      expect(option.flag).toMatch(/^--[a-z][a-z0-9-]+$/);
      expect(words[0]).toMatch(new RegExp(`^--(no-)?${option.flag.slice(2)}$`));
      expect(["always", "when-set"]).toContain(option.owned);
      expect(option.cli.help.length).toBeGreaterThan(10);
      expect(option.cli.valueName === null || /^[A-Z]+$/.test(option.cli.valueName)).toBe(true);
      if (option.stackKey !== null) {
        expect(VLLM_STACK_KEYS).toHaveProperty([
          `servingEngineSpec.modelSpec[].vllmConfig.${option.stackKey}`,
        ]);
      }
    });

    it("holds vLLM's default once: a value its own rule takes, shown in its help line", () => {
      const vllmDefault = option.vllmDefault;
      const values =
        vllmDefault.kind === "value"
          ? [vllmDefault.value]
          : vllmDefault.kind === "by-gpu"
            ? [vllmDefault.large, vllmDefault.other]
            : [];
      for (const value of values) expect(option.check(value, key)).toBe(value);
      if (vllmDefault.kind === "derived") expect(vllmDefault.from.length).toBeGreaterThan(3);
      expect(option.cli.help.endsWith(`(${vllmDefaultText(vllmDefault)})`)).toBe(true);
    });

    it("checks its value by its rule, naming the option", () => {
      expect(option.check(sample.good, key)).toBe(sample.good);
      expect(() => buildServeCommand(serve({ [key]: sample.bad }))).toThrow(
        expect.objectContaining({ field: key }),
      );
    });

    it("reaches vllm serve, docker and the stack values, and owns its flag once set", () => {
      const given = serve({ [key]: sample.good });
      const { argv } = buildServeCommand(given);
      expect(argv.join(" ")).toContain(words.join(" "));
      expect(buildDockerCommand(given).argv.join(" ")).toContain(words.join(" "));
      const [spec] = buildStackValues(given, option.loraOnly ? {} : {}).servingEngineSpec.modelSpec;
      if (option.stackKey !== null) expect(spec?.vllmConfig[option.stackKey]).toBe(sample.good);
      else expect(spec?.vllmConfig.extraArgs.join(" ")).toContain(words.join(" "));
      expect(() => buildServeCommand(serve({ [key]: sample.good, extraArgs: words }))).toThrow(
        ServeConfigError,
      );
    });

    it("is refused on a full serve when it belongs to LoRA", () => {
      if (!option.loraOnly) return;
      expect(() => buildServeCommand(full({ [key]: sample.good }))).toThrow(
        expect.objectContaining({ field: key, rule: expect.stringMatching(/not an option of a full serve/) }),
      );
    });
  },
);

describe("vLLM's defaults, read from the table", () => {
  it("give the batch defaults by GPU as EngineArgs.get_batch_defaults does", () => {
    const h100 = { memoryBytes: 81559 * 1024 ** 2, name: "H100" };
    const a100 = { memoryBytes: 81920 * 1024 ** 2, name: "A100-80GB" };
    const l4 = { memoryBytes: 23034 * 1024 ** 2, name: "L4" };
    expect([h100, a100, l4].map((gpu) => vllmDefaultOf("maxNumSeqs", gpu))).toEqual([1024, 256, 256]);
    expect([h100, a100, l4].map((gpu) => vllmDefaultOf("maxNumBatchedTokens", gpu))).toEqual([
      8192, 2048, 2048,
    ]);
    expect(vllmDefaultOf("gpuMemoryUtilization")).toBe(0.9);
    expect(vllmDefaultOf("blockSize")).toBe(16);
    expect(vllmDefaultOf("maxModelLen")).toBeUndefined();
  });
});

describe("--quantization", () => {
  it("refuses a method vLLM does not know, listing those it does", () => {
    expect(() => buildServeCommand(full({ quantization: "bogus" }))).toThrow(
      expect.objectContaining({
        field: "quantization",
        rule: expect.stringContaining("must be one of awq, fp8,"),
      }),
    );
    expect(VLLM_QUANTIZATION_METHODS).toContain("compressed-tensors");
  });
});

describe("an option bounded by another", () => {
  it("refuses --max-cpu-loras below --max-loras, as vLLM's LoRAConfig does, before vLLM starts", () => {
    expect(() => buildServeCommand(lora({ maxLoras: 4, maxCpuLoras: 2 }))).toThrow(
      expect.objectContaining({ field: "maxCpuLoras", rule: "must be at least maxLoras (4)" }),
    );
    expect(() => buildServeCommand(lora({ maxCpuLoras: 0 }))).toThrow(
      expect.objectContaining({ field: "maxCpuLoras" }),
    );
    expect(buildServeCommand(lora({ maxLoras: 4, maxCpuLoras: 4 })).argv.join(" ")).toContain(
      "--max-loras 4 --max-cpu-loras 4",
    );
  });
});

describe("an engine option's flag in extraArgs", () => {
  it("still reaches vLLM when the option is not set (owned only once set), as before the table", () => {
    const { argv } = buildServeCommand(full({ extraArgs: ["--max-model-len", "4096"] }));
    expect(argv.slice(-2)).toEqual(["--max-model-len", "4096"]);
  });
});

describe("serveConfigFromRecommendations", () => {
  it("passes the engine options on to the configuration it builds", () => {
    const config = serveConfigFromRecommendations(
      {
        snapshot_id: "8c3f9a1e-0000-4000-8000-000000000001",
        status: "completed",
        recommended_experiments: [
          {
            base_model_id: "llama-3.1-8b",
            batch_size: 8,
            learning_rate_multiplier: 1,
            n_epochs: 3,
            lora: true,
            recommended: true,
            reason_for_recommendation: "small data",
          },
        ],
      },
      { adapterPath: "/models/support", maxModelLen: 4096, dtype: "bfloat16", maxLoras: 2 },
    );
    expect(config).toMatchObject({ kind: "lora", maxModelLen: 4096, dtype: "bfloat16", maxLoras: 2 });
  });
});

describe("the stack values and the engine options", () => {
  it("take the stack's own maxModelLen, dtype and prefixCaching as before, and refuse a disagreement", () => {
    const [spec] = buildStackValues(full({}), { maxModelLen: 4096, dtype: "half", prefixCaching: false })
      .servingEngineSpec.modelSpec;
    expect(spec?.vllmConfig).toMatchObject({ maxModelLen: 4096, dtype: "half", enablePrefixCaching: false });
    expect(() => buildStackValues(full({ maxModelLen: 8192 }), { maxModelLen: 4096 })).toThrow(
      expect.objectContaining({
        field: "maxModelLen",
        rule: expect.stringMatching(/must agree with the serve configuration's maxModelLen \(8192\)/),
      }),
    );
  });

  it("request as many GPUs per replica as tensor parallelism shards across, and refuse a mismatch", () => {
    const [spec] = buildStackValues(full({ tensorParallelSize: 4 }), {}).servingEngineSpec.modelSpec;
    expect(spec).toMatchObject({ requestGPU: 4, vllmConfig: { tensorParallelSize: 4 } });
    expect(() => buildStackValues(full({ tensorParallelSize: 4 }), { gpusPerReplica: 2 })).toThrow(
      expect.objectContaining({ field: "gpusPerReplica" }),
    );
  });
});
