import { describe, expect, it } from "vitest";
import { buildDockerCommand, buildServeCommand, ServeConfigError, type ServeOptions } from "./index.js";

const lora: ServeOptions = {
  kind: "lora",
  baseModel: "meta-llama/Llama-3.1-8B-Instruct",
  adapters: [
    { name: "support", path: "/models/adapters/support-lora" },
    { name: "sales", path: "acme/sales-lora" },
  ],
  maxLoraRank: 32,
};

describe("buildDockerCommand", () => {
  it("runs the official image with GPUs, host IPC, the cache mounted and the same vLLM arguments", () => {
    const command = buildDockerCommand(lora, {
      image: "vllm/vllm-openai:v0.11.0",
      hfCacheDir: "/home/me/.cache/huggingface",
    });
    expect(command.argv).toEqual([
      "docker",
      "run",
      "--rm",
      "--gpus",
      "all",
      "--ipc=host",
      "-p",
      "127.0.0.1:8000:8000",
      "-v",
      "/home/me/.cache/huggingface:/root/.cache/huggingface",
      "-v",
      "/models/adapters/support-lora:/models/adapters/support-lora:ro",
      "--env",
      "HF_TOKEN",
      "vllm/vllm-openai:v0.11.0",
      // The entrypoint is `vllm serve`: the arguments start at the model, and vLLM listens on every
      // interface of the container while the published port stays on 127.0.0.1.
      "meta-llama/Llama-3.1-8B-Instruct",
      "--host",
      "0.0.0.0",
      "--port",
      "8000",
      "--enable-lora",
      "--lora-modules",
      "support=/models/adapters/support-lora",
      "sales=acme/sales-lora",
      "--max-lora-rank",
      "32",
    ]);
    const direct = buildServeCommand(lora);
    expect(command.client).toEqual(direct.client);
    expect(command.warnings).toEqual([]);
  });

  it("defaults to the latest official image and a named cache volume", () => {
    const { argv } = buildDockerCommand({ kind: "full", model: "acme/support-8b" });
    expect(argv).toContain("vllm/vllm-openai:latest");
    expect(argv).toContain("huggingface-cache:/root/.cache/huggingface");
  });

  it("passes HF_TOKEN and VLLM_API_KEY by name, never by value", () => {
    const key = "sk-docker-123";
    const command = buildDockerCommand({ kind: "full", model: "m", apiKey: key });
    expect(command.env).toEqual({ VLLM_API_KEY: key });
    expect(command.argv).toEqual(expect.arrayContaining(["--env", "HF_TOKEN", "--env", "VLLM_API_KEY"]));
    expect(command.shell).not.toContain(key);
    expect(command.argv.join(" ")).not.toContain(key);
  });

  it.each([
    ["0.0.0.0", "0.0.0.0:9000:9000", "http://127.0.0.1:9000/v1"],
    ["::1", "[::1]:9000:9000", "http://[::1]:9000/v1"],
  ])("publishes on %s", (host, publish, baseURL) => {
    const command = buildDockerCommand({ kind: "full", model: "m", host, port: 9000 });
    expect(command.argv[command.argv.indexOf("-p") + 1]).toBe(publish);
    expect(command.client.baseURL).toBe(baseURL);
  });

  it("mounts a local full model once, read-only, at the same path", () => {
    const { argv } = buildDockerCommand({ kind: "full", model: "/ckpt/run-7", servedModelName: "support" });
    expect(argv.filter((word) => word === "/ckpt/run-7:/ckpt/run-7:ro")).toHaveLength(1);
  });

  it.each<[string, ServeOptions, Record<string, unknown>, string, RegExp]>([
    ["a host name", { kind: "full", model: "m", host: "localhost" }, {}, "host", /IP address for docker -p/],
    ["a relative model path", { kind: "full", model: "./ckpt" }, {}, "model", /relative path/],
    ["a home-relative model path", { kind: "full", model: "~/ckpt" }, {}, "model", /relative path/],
    [
      "a relative adapter path",
      { kind: "lora", baseModel: "b", adapters: [{ name: "a", path: "../a" }] },
      {},
      "adapters[0].path",
      /relative path/,
    ],
    ["a path with ':'", { kind: "full", model: "/ckpt:v2" }, {}, "model", /':'/],
    ["an empty image", { kind: "full", model: "m" }, { image: "" }, "docker.image", /image reference/],
    [
      "an image option",
      { kind: "full", model: "m" },
      { image: "--privileged" },
      "docker.image",
      /image reference/,
    ],
    [
      "a relative cache",
      { kind: "full", model: "m" },
      { hfCacheDir: "~/.cache/hf" },
      "docker.hfCacheDir",
      /absolute/,
    ],
    ["a cache with ':'", { kind: "full", model: "m" }, { hfCacheDir: "/a:/etc" }, "docker.hfCacheDir", /':'/],
    ["an unknown docker option", { kind: "full", model: "m" }, { gpus: "0" }, "gpus", /not an option/],
    ["a bad serve option", { kind: "full", model: "m", port: 0 }, {}, "port", /1 to 65535/],
  ])("refuses %s", (_name, options, docker, field, rule) => {
    let error: unknown;
    try {
      buildDockerCommand(options, docker);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ServeConfigError);
    expect((error as ServeConfigError).field).toBe(field);
    expect((error as ServeConfigError).message).toMatch(rule);
  });
});
