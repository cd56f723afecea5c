// A stand-in for vLLM with a prefix cache, for the routing bench: an LRU of prompt blocks per instance
// (PREFIX_CACHE_BLOCKS), one prefill at a time, each taking PREFILL_FIXED_MS plus PREFILL_US_PER_TOKEN for
// every prompt token its cache does not hold; then the answer streams one token every DECODE_MS. Its
// /metrics counts prefix-cache queries and hits in tokens, as vLLM V1 does (`vllm:prefix_cache_queries`,
// `vllm:prefix_cache_hits`), and POST /reset_prefix_cache empties the cache, as vLLM's does. Started as
// `node prefix-cache-vllm.js serve MODEL --port P`, like `vllm serve`; ends on SIGTERM.
import { createServer, type ServerResponse } from "node:http";
import {
  BLOCK_TOKENS,
  blockHashes,
  cachedBlocks,
  type PromptMessage,
  promptTokens,
} from "./prefix-blocks.js";

const env = process.env;
const capacity = Number(env.PREFIX_CACHE_BLOCKS ?? 1024);
const fixedMs = Number(env.PREFILL_FIXED_MS ?? 5);
const usPerToken = Number(env.PREFILL_US_PER_TOKEN ?? 50);
const decodeMs = Number(env.DECODE_MS ?? 1);

const args = process.argv.slice(2);
const flag = (name: string) => {
  const at = args.indexOf(name);
  return at === -1 ? undefined : args[at + 1];
};
const model = flag("--served-model-name") ?? args[args.indexOf("serve") + 1] ?? "model";
const port = Number(flag("--port") ?? 8000);

/** Block hash to nothing, oldest first: a Map keeps insertion order, so re-inserting marks a use. */
const cache = new Map<string, true>();
const counters = { queries: 0, hits: 0, finished: 0, running: 0 };
let prefillFreeAt = 0;

function lookUpAndStore(messages: readonly PromptMessage[]): number {
  const tokens = promptTokens(messages);
  const hashes = blockHashes(tokens);
  const hitTokens = cachedBlocks(hashes, (hash) => cache.has(hash)) * BLOCK_TOKENS;
  for (const hash of hashes) {
    cache.delete(hash);
    cache.set(hash, true);
  }
  while (cache.size > capacity) cache.delete(cache.keys().next().value as string);
  counters.queries += tokens.length;
  counters.hits += hitTokens;
  return tokens.length - hitTokens;
}

function metricsPage(): string {
  const label = `model_name="${model}"`;
  return [
    `vllm:prefix_cache_queries_total{${label}} ${counters.queries}`,
    `vllm:prefix_cache_hits_total{${label}} ${counters.hits}`,
    `vllm:request_success_total{finished_reason="stop",${label}} ${counters.finished}`,
    `vllm:num_requests_running{${label}} ${counters.running}`,
    `vllm:num_requests_waiting{${label}} 0`,
    "",
  ].join("\n");
}

function chunk(content: string): string {
  const choice = { index: 0, delta: { content }, finish_reason: null };
  return `data: ${JSON.stringify({ id: "chatcmpl-prefix", object: "chat.completion.chunk", created: 0, model, choices: [choice] })}\n\n`;
}

function answer(
  res: ServerResponse,
  body: { messages?: PromptMessage[]; max_tokens?: number; stream?: boolean },
) {
  const uncached = lookUpAndStore(body.messages ?? []);
  const tokens = body.max_tokens ?? 16;
  const start = Math.max(performance.now(), prefillFreeAt);
  prefillFreeAt = start + fixedMs + (uncached * usPerToken) / 1000;
  counters.running += 1;
  const finish = () => {
    counters.running -= 1;
    counters.finished += 1;
  };
  const words = Array.from({ length: tokens }, (_, i) => `w${i}`);
  setTimeout(() => {
    if (!body.stream) {
      finish();
      const message = { role: "assistant", content: words.join(" ") };
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({
          id: "chatcmpl-prefix",
          object: "chat.completion",
          created: 0,
          model,
          choices: [{ index: 0, message, finish_reason: "stop" }],
        }),
      );
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream" });
    let sent = 0;
    const next = () => {
      if (res.destroyed) return finish();
      if (sent === tokens) {
        finish();
        res.end("data: [DONE]\n\n");
        return;
      }
      res.write(chunk(sent === 0 ? (words[0] ?? "") : ` ${words[sent]}`));
      sent += 1;
      setTimeout(next, decodeMs);
    };
    next();
  }, prefillFreeAt - performance.now());
}

const server = createServer((req, res) => {
  const path = req.url ?? "/";
  if (req.method === "GET" && path === "/health") return void res.end();
  if (req.method === "GET" && path === "/v1/models") {
    res.setHeader("content-type", "application/json");
    return void res.end(
      JSON.stringify({
        object: "list",
        data: [{ id: model, object: "model", created: 0, owned_by: "vllm" }],
      }),
    );
  }
  if (req.method === "GET" && path === "/metrics") return void res.end(metricsPage());
  if (req.method === "POST" && path === "/reset_prefix_cache") {
    cache.clear();
    return void res.end();
  }
  if (req.method === "POST" && path === "/v1/chat/completions") {
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (part: string) => {
      text += part;
    });
    req.on("end", () => answer(res, JSON.parse(text)));
    return;
  }
  res.statusCode = 404;
  res.end('{"detail":"Not Found"}');
});
server.keepAliveTimeout = 60_000;
server.listen(port, "127.0.0.1", () =>
  console.log(`INFO:     Uvicorn running on http://127.0.0.1:${port} (prefix-cache stand-in)`),
);
process.on("SIGTERM", () => process.exit(0));
process.on("SIGINT", () => process.exit(0));
