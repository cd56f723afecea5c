import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HubError, hubEndpoint, readHubModel } from "./plan/hub-reader.js";

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
