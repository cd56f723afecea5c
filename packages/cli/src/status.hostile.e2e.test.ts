import { createServer, type RequestListener, type Server } from "node:http";
import { getFreePort, type ManagedProcess } from "@finetune-studio/testing";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { cleanEnv, startCli } from "./test/cli-process.js";

// `studio-serve status` against servers that attack the operator's terminal or its time and memory: real
// HTTP servers on 127.0.0.1, the built CLI.

const servers: Server[] = [];
const clis: ManagedProcess[] = [];

async function serve(routes: Record<string, RequestListener>): Promise<string> {
  const server = createServer((request, response) => {
    const route = routes[request.url ?? ""];
    if (route === undefined) response.writeHead(404).end();
    else route(request, response);
  });
  servers.push(server);
  const port = await getFreePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return `http://127.0.0.1:${port}`;
}

const ok: RequestListener = (_request, response) => response.writeHead(200).end();
const json =
  (body: unknown): RequestListener =>
  (_request, response) =>
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
const text =
  (body: string): RequestListener =>
  (_request, response) =>
    response.writeHead(200, { "content-type": "text/plain" }).end(body);

/** A vLLM-shaped instance whose page is ordinary: the one that must still be shown. */
const healthy = () =>
  serve({
    "/health": ok,
    "/v1/models": json({ data: [{ id: "support", parent: null }] }),
    "/metrics": text('vllm:num_requests_running{model_name="support"} 1\n'),
  });

function status(args: string[]): ManagedProcess {
  const proc = startCli(["status", ...args], cleanEnv());
  clis.push(proc);
  return proc;
}

// ESC ] (retitle) ... BEL, ESC [2J (clear), the one-character CSI U+009B, and a right-to-left override.
const ATTACK = "evil\u001b]0;owned\u0007\u001b[2J\u009b2J\u202etxt";
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

afterEach(async () => {
  await Promise.all(clis.splice(0).map((proc) => proc.stop()));
});

afterAll(async () => {
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

describe("studio-serve status against hostile servers", { timeout: 60_000 }, () => {
  it("escapes model ids, adapter labels and quoted bad lines: nothing a server sends steers the terminal", async () => {
    const models = await serve({
      "/health": ok,
      "/v1/models": json({
        data: [
          { id: ATTACK, parent: null },
          { id: `${ATTACK}-lora`, parent: ATTACK },
        ],
      }),
      "/metrics": text(
        `vllm:lora_requests_info{max_lora="2",running_lora_adapters="${ATTACK}",waiting_lora_adapters=""} 1\n`,
      ),
    });
    const garbage = await serve({
      "/health": ok,
      "/v1/models": json({ data: [] }),
      "/metrics": text(`not a sample ${ATTACK}\n`),
    });
    for (const format of [[], ["--json"]]) {
      const proc = status([models, garbage, "--interval", "1", ...format]);
      await proc.exited;
      const output = proc.output();
      expect(output).not.toMatch(RAW_CONTROL);
      expect(output).toContain("\\u009b2J");
      expect(output).toContain("\\u202etxt");
    }
  });

  it("summarises a 6 MB page of 150,000 KV-cache series and still shows the healthy instance beside it", async () => {
    const series = Array.from({ length: 150_000 }, (_, i) => `vllm:kv_cache_usage_perc{engine="${i}"} 0.5`);
    const huge = await serve({
      "/health": ok,
      "/v1/models": json({ data: [{ id: "big", parent: null }] }),
      "/metrics": text(`${series.join("\n")}\n`),
    });
    const proc = status([huge, await healthy(), "--interval", "1", "--json"]);
    expect(await proc.exited).toBe(0);
    const { instances } = JSON.parse(proc.output());
    expect(instances.map((instance: { state: string }) => instance.state)).toEqual(["up", "up"]);
    expect(instances[0].metrics.kvCacheUsage).toBe(0.5);
    expect(proc.output()).not.toContain("unexpected error");
  });

  it("ends within --timeout of each look against a server that drips each answer just in time", async () => {
    // Each read alone answers within the 2 s timeout; together they would take 4.5 s a look.
    const drip =
      (body: string): RequestListener =>
      (_request, response) => {
        response.writeHead(200, { "content-type": "text/plain" });
        setTimeout(() => response.end(body), 1_500).unref();
      };
    const slow = await serve({
      "/health": drip(""),
      "/v1/models": drip(JSON.stringify({ data: [{ id: "slow", parent: null }] })),
      "/metrics": drip('vllm:num_requests_running{model_name="slow"} 1\n'),
    });
    const started = Date.now();
    const proc = status([slow, await healthy(), "--timeout", "2", "--interval", "1", "--json"]);
    await proc.exited;
    // Two looks of at most 2 s each, the 1 s interval, and the process's own start (generous on 2 cores).
    expect(Date.now() - started).toBeLessThan(2 * 2_000 + 1_000 + 4_000);
    const { instances } = JSON.parse(proc.output());
    expect(instances[1].state).toBe("up");
    expect(instances[0].detail).toMatch(/no answer within 2 s/);
  });
});
