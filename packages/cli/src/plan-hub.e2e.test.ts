import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hubCacheDir, hubOffline } from "./plan/hub-cache.js";
import { HubError, hubEndpoint, readHubModel } from "./plan/hub-reader.js";
import { runCapture } from "./test/run-cli.js";

// Stand-ins for the hub and its CDN on 127.0.0.1: never the real hub.
const CONFIG = { architectures: ["LlamaForCausalLM"], num_hidden_layers: 2 };
const INDEX = { metadata: { total_size: 1234 }, weight_map: {} };
const TOKEN = "hf_secret_token_value";
const seen: { path: string; authorization: string | undefined; range: string | undefined }[] = [];
let hub: Server;
let cdn: Server;
let hubUrl = "";
let cdnUrl = "";

function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<[Server, string]> {
  const server = createServer(handler);
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve([server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`]),
    ),
  );
}

function safetensors(): Buffer {
  const header = Buffer.from(
    JSON.stringify({
      w: { dtype: "BF16", shape: [2048], data_offsets: [0, 4096] },
      "lm_head.weight": { dtype: "BF16", shape: [1024], data_offsets: [4096, 6144] },
    }),
  );
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(header.length));
  return Buffer.concat([length, header]);
}

beforeAll(async () => {
  [cdn, cdnUrl] = await listen((req, res) => {
    seen.push({ path: `cdn${req.url}`, authorization: req.headers.authorization, range: req.headers.range });
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(INDEX));
  });
  [hub, hubUrl] = await listen((req, res) => {
    seen.push({ path: req.url ?? "", authorization: req.headers.authorization, range: req.headers.range });
    const [, owner, name, , , file] = (req.url ?? "").split("/");
    const repo = `${owner}/${name}`;
    if (repo === "org/gated") return void res.writeHead(req.headers.authorization ? 403 : 401).end("gated");
    if (repo === "org/limited") return void res.writeHead(429).end("slow down");
    if (repo === "org/hangs") return; // never answers
    if (repo === "org/ok" && file === "config.json") return void res.end(JSON.stringify(CONFIG));
    if (repo === "org/ok" && file === "model.safetensors.index.json") {
      return void res.writeHead(302, { location: `${cdnUrl}/blobs/index` }).end();
    }
    if (repo === "org/onefile" && file === "config.json") return void res.end(JSON.stringify(CONFIG));
    if (repo === "org/onefile" && file === "model.safetensors") {
      const match = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? "");
      const body = safetensors();
      return void res
        .writeHead(206)
        .end(match ? body.subarray(Number(match[1]), Number(match[2]) + 1) : body);
    }
    if (repo === "org/norange" && file === "config.json") return void res.end(JSON.stringify(CONFIG));
    if (repo === "org/norange" && file === "model.safetensors") {
      // Ignores the range and streams the whole "weights", with no length announced.
      res.writeHead(200);
      for (let i = 0; i < 64; i++) res.write(Buffer.alloc(16 * 1024));
      return void res.end();
    }
    res.writeHead(404).end("not found");
  });
});

afterAll(async () => {
  hub.closeAllConnections();
  cdn.closeAllConnections();
  await Promise.all([new Promise((r) => hub.close(r)), new Promise((r) => cdn.close(r))]);
});

const read = (repo: string, token?: string, timeoutMs = 2000) =>
  readHubModel(repo, { env: { HF_ENDPOINT: hubUrl }, token, timeoutMs });

describe("reading a model from the hub (a stand-in on 127.0.0.1)", () => {
  it("reads config.json and follows the index's redirect to another host without the token", async () => {
    seen.length = 0;
    const model = await read("org/ok", TOKEN);
    expect(model).toEqual({ config: CONFIG, safetensorsIndex: INDEX });
    expect(seen.find((r) => r.path.endsWith("config.json"))?.authorization).toBe(`Bearer ${TOKEN}`);
    const atCdn = seen.find((r) => r.path.startsWith("cdn"));
    expect(atCdn).toBeDefined();
    expect(atCdn?.authorization).toBeUndefined();
  });

  it("sizes a one-file model from its header with two ranged reads, its lm_head.weight apart", async () => {
    const model = await read("org/onefile");
    expect(model.weightsBytes).toBe(6144);
    expect(model.lmHeadBytes).toBe(2048);
  });

  it.each([
    [
      "a gated repository without a token",
      "org/gated",
      undefined,
      /gated or private \(401\): a token is needed; set HF_TOKEN/,
    ],
    ["a gated repository the token cannot open", "org/gated", TOKEN, /refused the token \(403\)/],
    ["a missing repository", "org/nothing", undefined, /has no config\.json \(is the name right\?\)/],
    ["a rate limit", "org/limited", undefined, /limiting requests \(429\)/],
    [
      "a hub that ignores the range and sends the whole file",
      "org/norange",
      undefined,
      /model\.safetensors: the answer is larger than 8 bytes/,
    ],
  ])("%s: a clear error", async (_, repo, token, message) => {
    const error = await read(repo, token).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HubError);
    expect(String(error)).toMatch(message);
    expect(String(error)).not.toContain(TOKEN);
  });

  it("a hub that hangs: gives up at the deadline", async () => {
    const started = Date.now();
    await expect(read("org/hangs", undefined, 300)).rejects.toThrow(/no answer within 0\.3 s/);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("allows plain http only on loopback endpoints", () => {
    expect(() => hubEndpoint({ HF_ENDPOINT: "http://mirror.example.com" })).toThrow(/must use https/);
    expect(hubEndpoint({ HF_ENDPOINT: "http://127.0.0.1:9" }).origin).toBe("http://127.0.0.1:9");
    expect(hubEndpoint({ HF_ENDPOINT: "http://[::1]:9" }).origin).toBe("http://[::1]:9");
    expect(hubEndpoint({}).origin).toBe("https://huggingface.co");
  });
});

// The hub's cache as huggingface_hub writes it: refs/main names a commit; the snapshot's files are links to blobs.
const LLAMA = fileURLToPath(
  new URL("../../serve-kit/src/plan/fixtures/llama-3.1-8b-instruct", import.meta.url),
);
const COMMIT = "0e9e39f249a16976918f6564b8830bc894c89659";
const caches = mkdtempSync(join(tmpdir(), "plan-hub-cache-"));
afterAll(() => rmSync(caches, { recursive: true, force: true }));

/** A hub cache at `hubDir` holding `repo` at refs/main, with the Llama fixture's config.json and index. */
function cacheModel(hubDir: string, repo: string): void {
  const repoDir = join(hubDir, `models--${repo.replace("/", "--")}`);
  const snapshot = join(repoDir, "snapshots", COMMIT);
  mkdirSync(join(repoDir, "refs"), { recursive: true });
  mkdirSync(join(repoDir, "blobs"), { recursive: true });
  mkdirSync(snapshot, { recursive: true });
  writeFileSync(join(repoDir, "refs", "main"), COMMIT);
  for (const [file, blob] of [
    ["config.json", "0b2cbb2a"],
    ["model.safetensors.index.json", "9b1f1c5e"],
  ] as const) {
    copyFileSync(join(LLAMA, file), join(repoDir, "blobs", blob));
    symlinkSync(join("..", "..", "blobs", blob), join(snapshot, file));
  }
}

describe("the hub's cache (huggingface_hub's layout), read before the hub and only it when offline", () => {
  const planArgs = (repo: string) => ["plan", repo, "--gpu", "H100", "--max-model-len", "8192"];

  it("locates the cache as huggingface_hub does, and reads HF_HUB_OFFLINE as it does", () => {
    expect(hubCacheDir({ HF_HUB_CACHE: "/a/hub", HF_HOME: "/b" })).toBe("/a/hub");
    expect(hubCacheDir({ HUGGINGFACE_HUB_CACHE: "/c/hub", HF_HOME: "/b" })).toBe("/c/hub");
    expect(hubCacheDir({ HF_HOME: "/b" })).toBe("/b/hub");
    expect(hubCacheDir({ XDG_CACHE_HOME: "/x" })).toBe("/x/huggingface/hub");
    for (const on of ["1", "true", "ON", "yes"]) expect(hubOffline({ HF_HUB_OFFLINE: on })).toBe(true);
    expect(hubOffline({ TRANSFORMERS_OFFLINE: "1" })).toBe(true);
    for (const off of ["0", "false", ""]) expect(hubOffline({ HF_HUB_OFFLINE: off })).toBe(false);
  });

  it("HF_HUB_OFFLINE=1 and the model in $HF_HOME/hub: planned from the cache, the hub never asked", async () => {
    const home = join(caches, "home");
    cacheModel(join(home, "hub"), "org/cached");
    seen.length = 0;
    const { code, stdout, stderr } = await runCapture(planArgs("org/cached"), {
      PATH: "/nonexistent",
      HF_ENDPOINT: hubUrl,
      HF_HOME: home,
      HF_HUB_OFFLINE: "1",
    });
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/verdict: fits: 8192 tokens per request/);
    expect(stdout).toContain(
      `note: read from the hub's cache (${join(home, "hub", "models--org--cached", "snapshots", COMMIT)})`,
    );
    expect(seen).toEqual([]);
  });

  it("HF_HUB_CACHE names the cache; online, the cache is read first and the hub not asked", async () => {
    const hubDir = join(caches, "elsewhere");
    cacheModel(hubDir, "org/ok");
    seen.length = 0;
    const { code, stdout } = await runCapture(planArgs("org/ok"), {
      PATH: "/nonexistent",
      HF_ENDPOINT: hubUrl,
      HF_HUB_CACHE: hubDir,
    });
    expect(code).toBe(0);
    expect(stdout).toContain("read from the hub's cache");
    expect(seen).toEqual([]);
  });

  it("offline and not in the cache: says so, names what is missing and how to get it, and asks nothing", async () => {
    seen.length = 0;
    const home = join(caches, "empty-home");
    const { code, stderr } = await runCapture(planArgs("org/ok"), {
      PATH: "/nonexistent",
      HF_ENDPOINT: hubUrl,
      HF_HOME: home,
      HF_HUB_OFFLINE: "1",
    });
    expect(code).toBe(4);
    expect(stderr).toContain(
      `org/ok@main: not in the hub's cache, and HF_HUB_OFFLINE is set, so the hub is not asked (${join(home, "hub", "models--org--ok")} has no refs/main)`,
    );
    expect(stderr).toContain("huggingface-cli download org/ok config.json model.safetensors.index.json");
    expect(seen).toEqual([]);
  });

  it("a snapshot with config.json only is not enough offline: the weights' size is missing", async () => {
    const hubDir = join(caches, "partial");
    cacheModel(hubDir, "org/partial");
    rmSync(join(hubDir, "models--org--partial", "snapshots", COMMIT, "model.safetensors.index.json"));
    const { code, stderr } = await runCapture(planArgs("org/partial"), {
      PATH: "/nonexistent",
      HF_HUB_CACHE: hubDir,
      HF_HUB_OFFLINE: "1",
    });
    expect(code).toBe(4);
    expect(stderr).toMatch(/has neither model\.safetensors\.index\.json nor model\.safetensors/);
  });
});
