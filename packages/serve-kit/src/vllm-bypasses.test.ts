import { describe, expect, it } from "vitest";
import { buildServeCommand, ServeConfigError, type ServeOptions } from "./index.js";
import { parseVllmServe } from "./test/vllm-parser.js";

// Every way found to walk around the owned-flag guard, each refused with its reason. Each case
// also shows, through the model of vLLM's parser, what vLLM would have done with the argv.

const full = (extraArgs: string[]): ServeOptions => ({
  kind: "full",
  model: "acme/support-8b",
  servedModelName: "support",
  extraArgs,
});
const lora = (extraArgs: string[]): ServeOptions => ({
  kind: "lora",
  baseModel: "meta-llama/Llama-3.1-8B-Instruct",
  adapters: [{ name: "support", path: "/models/support-lora" }],
  extraArgs,
});

function refusal(options: ServeOptions): ServeConfigError {
  try {
    buildServeCommand(options);
  } catch (error) {
    if (error instanceof ServeConfigError) return error;
    throw error;
  }
  throw new Error("the builder accepted it");
}

/** What vLLM would have read had the builder passed the arguments on. */
function vllmReads(options: ServeOptions) {
  const base = buildServeCommand({ ...options, extraArgs: [] });
  return parseVllmServe([...base.argv.slice(2), ...(options.extraArgs ?? [])]);
}

describe("dotted arguments", () => {
  it("--lora-modules.name/.path would replace the adapters", () => {
    const options = lora(["--lora-modules.name", "other", "--lora-modules.path", "/other"]);
    expect(vllmReads(options)).toMatchObject({
      ok: true,
      args: { loraModules: [{ name: "other", path: "/other" }] },
    });
    const error = refusal(options);
    expect(error.field).toBe("extraArgs[0]");
    expect(error.rule).toMatch(/must not set --lora-modules.*a dotted argument/);
  });

  it("--served-model-name.x would rename the served model", () => {
    const options = full(["--served-model-name.x", "y"]);
    expect(vllmReads(options)).toMatchObject({
      ok: true,
      args: { servedNames: ['{"x": "y"}'.replace(" ", "")] },
    });
    expect(refusal(options).rule).toMatch(/must not set --served-model-name/);
  });

  it("--api-key.x would put a key in argv while client.apiKey says EMPTY, and the key is never echoed", () => {
    const options = full(["--api-key.x", "sk-secret-123"]);
    expect(vllmReads(options)).toMatchObject({ ok: true, args: { apiKey: ['{"x":"sk-secret-123"}'] } });
    const error = refusal(options);
    expect(error.rule).toMatch(/must not set --api-key/);
    expect(error.message).not.toContain("sk-secret");
    expect(refusal(full(["--api_key.x=sk-secret-123"])).message).not.toContain("sk-secret");
  });

  it("dotted, with underscores and abbreviated: --lora_mod.name=x", () => {
    expect(refusal(lora(["--lora_mod.name=x", "--lora_mod.path=/x"])).rule).toMatch(/--lora-modules/);
  });

  it("a dotted argument with nothing after it would crash vLLM with an IndexError", () => {
    const options = full(["--hf-overrides.rope_scaling"]);
    expect(vllmReads(options)).toMatchObject({ ok: false, kind: "crash" });
    expect(refusal(options).rule).toMatch(/needs a value after it/);
  });
});

describe("--config FILE", () => {
  it.each([
    ["--config", "serve.yaml"],
    ["--config=serve.yaml"],
    ["--conf", "serve.yaml"],
    ["--config.port", "1"],
  ])("%s is refused: the file could set a key, adapters or a port the guard never sees", (...args) => {
    const error = refusal(full(args));
    expect(error.field).toBe("extraArgs[0]");
    expect(error.rule).toMatch(/must not use --config/);
  });

  it("options that only start like it stay allowed", () => {
    expect(buildServeCommand(full(["--config-format", "auto"])).argv.slice(-2)).toEqual([
      "--config-format",
      "auto",
    ]);
  });
});

describe("values vLLM would hand to the option before them", () => {
  it.each(["-1", "-.5", "-0.5", "-1e3"])("%s as the first extra argument", (value) => {
    const options = full([value]);
    if (value === "-1") {
      // It would join the builder's --served-model-name: the model is then served under two names.
      expect(vllmReads(options)).toMatchObject({ ok: true, args: { servedNames: ["support", "-1"] } });
    }
    const error = refusal(options);
    expect(error.field).toBe("extraArgs[0]");
    expect(error.rule).toMatch(/must be an option \(--name\)|dotted option/);
  });

  it("a value right after dotted arguments, which vLLM moves to the end", () => {
    const options = full(["--hf-overrides.rope_scaling.factor", "2.0", "-1", "--max-model-len", "8192"]);
    expect(vllmReads(options)).toMatchObject({ ok: true, args: { servedNames: ["support", "-1"] } });
    const error = refusal(options);
    expect(error.field).toBe("extraArgs[2]");
    expect(error.rule).toMatch(/moves the dotted arguments before it to the end/);
  });

  it("a negative number as the value of an option of the user's own stays allowed", () => {
    expect(buildServeCommand(full(["--max-model-len", "-1"])).argv.slice(-2)).toEqual([
      "--max-model-len",
      "-1",
    ]);
  });

  it("a negative decimal is refused, since vLLM would read it as a dotted argument", () => {
    const options = full(["--gpu-memory-utilization", "-0.5"]);
    expect(refusal(options).rule).toMatch(/dotted option/);
    expect(buildServeCommand(full(["--gpu-memory-utilization=-0.5"])).argv.at(-1)).toBe(
      "--gpu-memory-utilization=-0.5",
    );
  });
});

describe("other spellings of owned flags", () => {
  it.each([
    ["underscores", ["--served_model_name", "x"]],
    ["=value", ["--port=9000"]],
    ["abbreviation", ["--por", "9000"]],
    ["abbreviation with underscores and =", ["--api_k=sk-x"]],
    ["abbreviation of --host", ["--hos", "0.0.0.0"]],
    ["--uds", ["--uds", "/tmp/vllm.sock"]],
    ["--no-enable-lora on a full model", ["--no-enable-lora"]],
  ])("%s", (_name, args) => {
    expect(refusal(full(args)).rule).toMatch(/which the builder writes/);
  });

  it("a served name on a LoRA serve, which could equal an adapter's name", () => {
    const options = lora(["--served-model-name", "support"]);
    expect(vllmReads(options)).toMatchObject({ ok: true, args: { servedNames: ["support"] } });
    expect(refusal(options).rule).toMatch(/must not set --served-model-name/);
  });
});
