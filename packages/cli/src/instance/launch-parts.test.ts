import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { exitCodeOf } from "@finetune-studio/internal";
import { buildServeCommand } from "@finetune-studio/serve-kit";
import { describe, expect, it } from "vitest";
import { tempDir } from "../test/cli-process.js";
import { clientSnippet } from "./client-snippet.js";
import { crashHints } from "./crash-hints.js";
import { LogFile } from "./log-file.js";
import { LogLines, RecentLines } from "./log-lines.js";

describe("crashHints", () => {
  it.each([
    ["torch.OutOfMemoryError: CUDA out of memory. Tried to allocate", /out of GPU memory/],
    [
      "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization`",
      /out of GPU memory/,
    ],
    ["ValueError: LoRA rank 64 is greater than max_lora_rank 16.", /--max-lora-rank is too small/],
    ["Cannot access gated repo for url https://huggingface.co/meta-llama/...", /HF_TOKEN/],
    ["huggingface_hub.errors.RepositoryNotFoundError: 401 Client Error", /gated or private/],
    ["OSError: [Errno 98] Address already in use", /port is already taken/],
    ["RuntimeError: No CUDA GPUs are available", /no usable NVIDIA GPU/],
  ])("%s", (line, hint) => {
    expect(crashHints(["INFO starting", line])).toEqual([expect.stringMatching(hint)]);
  });

  it("gives no hint for an unknown failure", () => {
    expect(crashHints(["Traceback (most recent call last):", "KeyError: 'rope_scaling'"])).toEqual([]);
  });
});

describe("LogLines", () => {
  it("joins chunks into lines, keeps the final state of carriage-return progress bars, flushes the rest", () => {
    const lines: string[] = [];
    const splitter = new LogLines((line) => lines.push(line));
    splitter.push("INFO one\nINFO t");
    splitter.push("wo\r\nDownloading  10%\rDownloading 100%\nlast without newline");
    expect(lines).toEqual(["INFO one", "INFO two", "Downloading 100%"]);
    splitter.flush();
    expect(lines.at(-1)).toBe("last without newline");
  });

  it("keeps a chunk-by-chunk progress bar to its last state, with no newline until the end", () => {
    const lines: string[] = [];
    const splitter = new LogLines((line) => lines.push(line));
    for (const percent of [10, 20, 30]) splitter.push(`\rDownloading ${percent}%`);
    splitter.push("\r");
    splitter.push("\n");
    splitter.push("a\r");
    splitter.push("b\n");
    expect(lines).toEqual(["Downloading 30%", "b"]);
  });

  it("keeps at most maxChars of a line that never ends, and says how much more there was", () => {
    const lines: string[] = [];
    const splitter = new LogLines((line) => lines.push(line), 10);
    for (let i = 0; i < 1000; i++) splitter.push("x".repeat(100));
    splitter.push("\nnext\n");
    expect(lines).toEqual([`${"x".repeat(10)}… (99990 more characters not kept)`, "next"]);
  });

  it("RecentLines keeps the last lines only", () => {
    const recent = new RecentLines(2);
    for (const line of ["a", "b", "c"]) recent.add(line);
    expect(recent.lines()).toEqual(["b", "c"]);
  });
});

describe("LogFile", () => {
  it("rotates to <name>.1 past its size, so the log never holds more than two files' worth", () => {
    const path = join(tempDir("log-file-"), "vllm-8000.log");
    const log = new LogFile(path, 100);
    for (let i = 0; i < 30; i++) log.write(`line ${String(i).padStart(3, "0")} of the log`);
    log.close();
    const current = readFileSync(path, "utf8");
    const previous = readFileSync(`${path}.1`, "utf8");
    expect(Buffer.byteLength(current)).toBeLessThanOrEqual(100);
    expect(Buffer.byteLength(previous)).toBeLessThanOrEqual(100);
    expect(current.trimEnd().split("\n").at(-1)).toBe("line 029 of the log");
    expect(previous.split("\n")[0]).toMatch(/^line 0\d\d of the log$/);
  });
});

describe("exitCodeOf", () => {
  it.each([
    [{ code: 0, signal: null }, 0],
    [{ code: 7, signal: null }, 7],
    [{ code: null, signal: "SIGTERM" as const }, 143],
    [{ code: null, signal: "SIGKILL" as const }, 137],
    [{ code: null, signal: null, error: new Error("spawn EACCES") }, 1],
  ])("%j -> %i", (exit, want) => {
    expect(exitCodeOf(exit)).toBe(want);
  });
});

describe("clientSnippet", () => {
  // A served name may hold a quote, which the curl line must survive.
  const { client } = buildServeCommand({ kind: "full", model: "/ckpt", servedModelName: "it's" });

  it("writes a curl line that /bin/sh runs as intended, with the key from its variable", () => {
    const snippet = clientSnippet(client, "MY_KEY");
    const curl =
      snippet
        .split("\n")
        .find((line) => line.trimStart().startsWith("curl "))
        ?.trim() ?? "";
    const out = execFileSync("/bin/sh", ["-c", `curl() { printf '%s\\0' "$@"; }; ${curl}`], {
      env: { MY_KEY: "sk-x" },
      encoding: "utf8",
    });
    const words = out.split("\0").slice(0, -1);
    expect(words).toContain("Authorization: Bearer sk-x");
    expect(JSON.parse(words.at(-1) ?? "")).toEqual({
      model: "it's",
      messages: [{ role: "user", content: "Hello" }],
      max_tokens: 64,
    });
  });

  it("never holds a key value, and uses the dummy key without one", () => {
    expect(clientSnippet({ ...client, apiKey: "sk-secret" }, "MY_KEY")).not.toContain("sk-secret");
    expect(clientSnippet(client, undefined)).toContain('api_key="EMPTY"');
    expect(clientSnippet(client, undefined)).toContain(
      'createChatClient({ baseUrl: "http://127.0.0.1:8000" })',
    );
  });
});
