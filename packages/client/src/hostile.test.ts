// Regression tests for hostile and broken servers (issue #17, "The client"): each attack is played by a real
// node:http server on 127.0.0.1 against the real global fetch. A canary token rides on every request and is
// searched for in every error (message, stack, JSON, util.inspect).
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { createGzip } from "node:zlib";
import { build } from "esbuild";
import { afterEach, describe, expect, it } from "vitest";
import { createChatClient } from "./chat.js";
import {
  MAX_MESSAGE_LENGTH,
  StudioApiError,
  StudioAuthError,
  StudioError,
  StudioNotFoundError,
  StudioRecommendationsFailedError,
  StudioServerError,
} from "./errors.js";
import { createStudioClient, type StudioClientOptions } from "./studio.js";
import { type FaultServer, type Handler, reply, startFaultServer } from "./test/fault-server.js";
import {
  completedRecommendations,
  fullTree,
  ids,
  processingRecommendations,
  scoredTrace,
} from "./test/fixtures.js";
import { expectSecretNowhere } from "./test/no-secret.js";

const CANARY = "canary-tok-7d1e4b90-do-not-leak";
const MiB = 1024 * 1024;
const servers: FaultServer[] = [];

async function serve(...handlers: Handler[]): Promise<FaultServer> {
  const server = await startFaultServer(handlers);
  servers.push(server);
  return server;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

function studio(server: FaultServer, extra: Partial<StudioClientOptions> = {}) {
  return createStudioClient({ baseUrl: server.url, token: CANARY, ...extra });
}

/** The error a call rejects with, after checking that the canary is nowhere in it and its message is short. */
async function failureOf(call: Promise<unknown>): Promise<Error> {
  const error = await call.then(
    () => {
      throw new Error("expected the call to fail");
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  expectSecretNowhere(error, CANARY);
  expect((error as Error).message.length).toBeLessThanOrEqual(MAX_MESSAGE_LENGTH);
  return error as Error;
}

/** Writes `total` bytes of zeros (one reused 64 KiB chunk) through `sink`, minding backpressure; counts what went. */
async function streamZeros(
  sink: NodeJS.WritableStream & { writableEnded?: boolean; destroyed?: boolean },
  total: number,
  sent: { bytes: number },
): Promise<void> {
  const chunk = Buffer.alloc(64 * 1024);
  while (sent.bytes < total && !sink.destroyed) {
    sent.bytes += chunk.byteLength;
    if (!sink.write(chunk)) {
      // Whichever comes first; the others are removed, or every wait would leave two listeners behind.
      await new Promise<void>((resolve) => {
        const done = () => {
          sink.off("drain", done).off("close", done).off("error", done);
          resolve();
        };
        sink.on("drain", done).on("close", done).on("error", done);
      });
    }
  }
  if (!sink.destroyed) sink.end();
}

describe("secrets in what a server echoes", () => {
  it("scrubs the token from a reason phrase that quotes it (500 Denied for Bearer <token>)", async () => {
    const server = await serve((request, response) => {
      response.writeHead(500, `Denied for ${request.headers.authorization}`, {
        "content-type": "text/plain",
      });
      response.end("no");
    });
    const error = await failureOf(studio(server, { maxRetries: 0 }).getProjectTree(ids.project));
    expect(error).toBeInstanceOf(StudioServerError);
    expect(error.message).toContain("Denied for Bearer [redacted]");
    expect(server.received[0]?.authorization).toBe(`Bearer ${CANARY}`);
  });

  it("scrubs the chat apiKey from a reason phrase too", async () => {
    const server = await serve((request, response) => {
      response.writeHead(401, `Bad key ${request.headers.authorization}`).end();
    });
    const chat = createChatClient({ baseUrl: server.url, apiKey: CANARY });
    const error = await failureOf(chat.listModels());
    expect(error).toBeInstanceOf(StudioAuthError);
    expect(error.message).toContain("Bad key Bearer [redacted]");
  });
});

describe("redirects are refused, never followed", () => {
  it("does not send a PUT body or custom headers to another origin that a 307 points at", async () => {
    const elsewhere = await serve(reply.json(200, scoredTrace));
    const server = await serve((_, response) => {
      response.writeHead(307, { location: `${elsewhere.url}/collect?stolen=${CANARY}` }).end();
    });
    const client = studio(server, { headers: { "X-Team-Secret": "team-canary" } });
    const error = await failureOf(client.updateTrace(ids.trace, { feedback: "private words" }));
    expect(error).toBeInstanceOf(StudioApiError);
    expect(error).toMatchObject({ status: 307 });
    expect(error.message).toContain(`redirected (307) to ${elsewhere.url}/collect;`);
    expect(error.message).not.toContain("stolen");
    expect(elsewhere.received).toHaveLength(0);
    // Not retried: a redirect will not go away.
    expect(server.received).toHaveLength(1);
    expect(server.received[0]?.body).toBe('{"feedback":"private words"}');
  });

  it("does not send a chat conversation to another origin (301 on POST)", async () => {
    const elsewhere = await serve(reply.json(200, {}));
    const server = await serve((_, response) => {
      response.writeHead(301, { location: `${elsewhere.url}/v1/chat/completions` }).end();
    });
    const chat = createChatClient({ baseUrl: server.url });
    const error = await failureOf(
      chat.complete({
        model: "m",
        messages: [{ role: "user", content: "my secret question" }],
        max_tokens: 4,
      }),
    );
    expect(error).toMatchObject({ status: 301 });
    expect(elsewhere.received).toHaveLength(0);
  });

  it("refuses a same-origin redirect as well: the API has none", async () => {
    const server = await serve((_, response) => {
      response.writeHead(302, { location: "/login?next=x" }).end();
    });
    const error = await failureOf(studio(server).getProjectTree(ids.project));
    expect(error.message).toContain(`redirected (302) to ${server.url}/login;`);
    expect(server.received).toHaveLength(1);
  });
});

describe("bodies are read with a byte limit", () => {
  it("stops reading a 1 GiB body at the default 64 MiB, cancels it, and does not retry", async () => {
    const sent = { bytes: 0 };
    const server = await serve((_, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      void streamZeros(response, 1024 * MiB, sent);
    });
    const error = await failureOf(studio(server).getProjectTree(ids.project));
    expect(error).toBeInstanceOf(StudioError);
    expect(error.message).toMatch(/over maxResponseBytes \(67108864 bytes\)/);
    expect(server.received).toHaveLength(1);
    // The stream was cancelled: the server could not push much past the limit (socket buffers aside).
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(sent.bytes).toBeLessThan(200 * MiB);
  }, 60_000);

  it("stops inflating a gzip bomb at maxResponseBytes and does not retry", async () => {
    const sent = { bytes: 0 };
    const server = await serve((_, response) => {
      response.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      const gzip = createGzip();
      gzip.pipe(response);
      response.on("close", () => gzip.destroy());
      void streamZeros(gzip, 1024 * MiB, sent);
    });
    const error = await failureOf(
      studio(server, { maxResponseBytes: 4 * MiB }).getRecommendations(ids.snapshot),
    );
    expect(error.message).toMatch(/over maxResponseBytes \(4194304 bytes\)/);
    expect(server.received).toHaveLength(1);
    expect(sent.bytes).toBeLessThan(512 * MiB);
  }, 60_000);

  it("keeps peak memory bounded while a 1 GiB body is refused (measured in a child process)", async () => {
    const sent = { bytes: 0 };
    const server = await serve((_, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      void streamZeros(response, 1024 * MiB, sent);
    });
    const dir = mkdtempSync(join(tmpdir(), "client-memory-"));
    try {
      // The client as an app would ship it, bundled from this source, run by a fresh Node process.
      await build({
        entryPoints: [new URL("./index.ts", import.meta.url).pathname],
        bundle: true,
        format: "esm",
        platform: "node",
        outfile: join(dir, "client.mjs"),
        logLevel: "silent",
      });
      const script = `
        const { createStudioClient } = await import(${JSON.stringify(join(dir, "client.mjs"))});
        const client = createStudioClient({ baseUrl: process.argv[1], token: "t", maxResponseBytes: 16 * 1024 * 1024 });
        const before = process.memoryUsage().rss;
        const error = await client.getProjectTree(${JSON.stringify(ids.project)}).catch((e) => e);
        console.log(JSON.stringify({ name: error.name, message: error.message, before, peak: process.resourceUsage().maxRSS * 1024 }));`;
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ["--input-type=module", "-e", script, server.url],
        { timeout: 60_000 },
      );
      const outcome = JSON.parse(stdout) as { name: string; message: string; before: number; peak: number };
      expect(outcome.name).toBe("StudioError");
      expect(outcome.message).toMatch(/over maxResponseBytes/);
      // 16 MiB kept at most, plus what the runtime buffers: far from the 1 GiB a whole read would take.
      expect(outcome.peak - outcome.before).toBeLessThan(160 * MiB);
      expect(sent.bytes).toBeLessThan(400 * MiB);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it("bounds an error body too, keeping the status and its retries", async () => {
    const sent = { bytes: 0 };
    const server = await serve((_, response) => {
      response.writeHead(503, { "content-type": "text/plain", "retry-after-ms": "1" });
      void streamZeros(response, 64 * MiB, sent);
    });
    const error = await failureOf(
      studio(server, { maxResponseBytes: MiB, maxRetries: 1 }).getProjectTree(ids.project),
    );
    expect(error).toBeInstanceOf(StudioServerError);
    expect(server.received).toHaveLength(2);
  }, 60_000);
});

describe("failures in this process", () => {
  it("keeps a 400 whose body nests 200,000 deep a 400, sent once, with the token scrubbed", async () => {
    const depth = 200_000;
    const server = await serve((request, response) => {
      response.writeHead(400, { "content-type": "application/json" });
      response.end(`${"[".repeat(depth)}"${request.headers.authorization}"${"]".repeat(depth)}`);
    });
    const error = await failureOf(studio(server).updateTrace(ids.trace, { score: 0.5 }));
    expect(error).toBeInstanceOf(StudioApiError);
    expect(error).toMatchObject({ status: 400 });
    expect(server.received).toHaveLength(1);
  });

  it("does not retry nor call a connection error what fails in this process (a RangeError)", async () => {
    let calls = 0;
    const fetch = async () => {
      calls++;
      throw new RangeError("Maximum call stack size exceeded");
    };
    const client = createStudioClient({ baseUrl: "https://studio.example.net", token: CANARY, fetch });
    const error = await failureOf(client.getProjectTree(ids.project));
    expect(error.constructor).toBe(StudioError);
    expect(error.message).toContain("failed in this process");
    expect(calls).toBe(1);
  });
});

describe("2xx answers are checked at the call", () => {
  it.each<[string, unknown, RegExp]>([
    ["{}", {}, /id is the trace asked for/],
    ["null", null, /a trace is an object \(got null\)/],
    ["an error object", { error: "quota" }, /id is the trace asked for/],
    [
      "another trace",
      { ...scoredTrace, id: "00000000-0000-4000-8000-000000000000" },
      /id is the trace asked for/,
    ],
  ])("refuses updateTrace answering %s", async (_, body, rule) => {
    const server = await serve(reply.json(200, body));
    const error = await failureOf(studio(server).updateTrace(ids.trace, { score: 1 }));
    expect(error.constructor).toBe(StudioError);
    expect(error.message).toContain(`PUT /api/v1/traces/${ids.trace} answered 200`);
    expect(error.message).toMatch(rule);
    expect(server.received).toHaveLength(1);
  });

  it.each([
    ["announced by content-length: 0", { "content-length": "0" }],
    ["of unknown length", { "transfer-encoding": "chunked" }],
  ])("names an empty 200 body as empty, %s", async (_, headers) => {
    const server = await serve((__, response) => {
      response.writeHead(200, { "content-type": "application/json", ...headers }).end();
    });
    const error = await failureOf(studio(server).getProjectTree(ids.project));
    expect(error.message).toBe(
      `GET /api/v1/public/projects/${ids.project} answered 200 with an empty body: a project tree is an object`,
    );
  });

  it("accepts the trace asked for, whatever the case of its id", async () => {
    const server = await serve(reply.json(200, { ...scoredTrace, id: ids.trace.toUpperCase() }));
    await expect(studio(server).updateTrace(ids.trace, { score: 1 })).resolves.toMatchObject({ score: 0.85 });
  });

  it.each<[string, unknown, RegExp]>([
    [
      "another snapshot",
      { ...completedRecommendations, snapshot_id: ids.project },
      /snapshot_id is the snapshot asked for/,
    ],
    [
      "a status that is not a string",
      { ...completedRecommendations, status: 7 },
      /status is a string \(got 7\)/,
    ],
    [
      "a list that is not an array",
      { ...completedRecommendations, recommended_models: {} },
      /recommended_models is an array/,
    ],
  ])("refuses recommendations for %s", async (_, body, rule) => {
    const server = await serve(reply.json(200, body));
    const error = await failureOf(studio(server).getRecommendations(ids.snapshot));
    expect(error.constructor).toBe(StudioError);
    expect(error.message).toMatch(rule);
  });

  it("refuses a project tree with children: [null], so the tree helpers never see it", async () => {
    const broken = structuredClone(fullTree) as { project: { children: unknown[] } };
    broken.project.children = [null];
    const server = await serve(reply.json(200, broken));
    const error = await failureOf(studio(server).getProjectTree(ids.project));
    expect(error.message).toMatch(/a node's children are objects \(got null\)/);
    expect(error.message).toContain(`GET /api/v1/public/projects/${ids.project}`);
  });

  it("walks a project tree 100,000 levels deep without overflowing", async () => {
    // Written as text: JSON.stringify itself would overflow on it.
    const depth = 100_000;
    const open = `{"type":"dataset","id":"${ids.project}","label":"x","children":[`;
    const body = `{"project":${open.repeat(depth)}${"]}".repeat(depth)}}`;
    const server = await serve(reply.text(200, body, "application/json"));
    await expect(studio(server).getProjectTree(ids.project)).resolves.toHaveProperty("project");
    // Under a second alone; a loaded CI machine can make parsing 5 MiB of nesting several times slower.
  }, 60_000);
});

describe("a short outage does not end a long wait", () => {
  it("polls through six 503s (a service restart) and resolves on completed", async () => {
    const server = await serve(
      reply.json(200, processingRecommendations),
      ...Array.from({ length: 6 }, () => reply.json(503, { message: "restarting" })),
      reply.json(200, completedRecommendations),
    );
    const done = await studio(server).waitForRecommendations(ids.snapshot, {
      intervalMs: 5,
      timeoutMs: 30_000,
    });
    expect(done.status).toBe("completed");
    expect(server.received).toHaveLength(8);
  });

  it("polls through resets and 429s as well", async () => {
    const server = await serve(
      reply.reset(),
      reply.json(429, {}, { "retry-after-ms": "10" }),
      reply.json(408, {}),
      reply.json(200, completedRecommendations),
    );
    await expect(
      studio(server).waitForRecommendations(ids.snapshot, { intervalMs: 5, timeoutMs: 30_000 }),
    ).resolves.toMatchObject({ status: "completed" });
    expect(server.received).toHaveLength(4);
  });

  it.each<[number, typeof StudioApiError]>([
    [401, StudioAuthError],
    [403, StudioAuthError],
    [404, StudioNotFoundError],
  ])("stops at once on %i", async (status, type) => {
    const server = await serve(
      reply.json(200, processingRecommendations),
      reply.json(status, { message: "no" }),
    );
    const error = await failureOf(
      studio(server).waitForRecommendations(ids.snapshot, { intervalMs: 5, timeoutMs: 30_000 }),
    );
    expect(error).toBeInstanceOf(type);
    expect(server.received).toHaveLength(2);
  });

  it("stops at once on an answer that breaks the contract", async () => {
    const server = await serve(reply.json(200, { status: "processing" }));
    const error = await failureOf(studio(server).waitForRecommendations(ids.snapshot, { intervalMs: 5 }));
    expect(error.message).toMatch(/snapshot_id is the snapshot asked for/);
    expect(server.received).toHaveLength(1);
  });
});

describe("messages stay short whatever the server sends", () => {
  it("does not embed a 1 MiB snapshot_id in a failed wait's message", async () => {
    const server = await serve(reply.json(200, { status: "failed", snapshot_id: "f".repeat(MiB) }));
    const error = await failureOf(studio(server).waitForRecommendations(ids.snapshot, { intervalMs: 5 }));
    expect(error.message.length).toBeLessThan(500);
  });

  it("keeps a failed wait's answer on the error, scrubbed, with a short message", async () => {
    const failed = { status: "failed", snapshot_id: ids.snapshot, error: `${CANARY} ${"e".repeat(MiB)}` };
    const server = await serve(reply.json(200, failed));
    const error = await failureOf(studio(server).waitForRecommendations(ids.snapshot, { intervalMs: 5 }));
    expect(error).toBeInstanceOf(StudioRecommendationsFailedError);
    const kept = (error as StudioRecommendationsFailedError).recommendations as unknown as { error: string };
    expect(kept.error).toHaveLength(MiB + "[redacted] ".length);
  });

  it.each<[string, (response: ServerResponse) => void]>([
    [
      "a 1 MiB message",
      (r) =>
        r
          .writeHead(500, { "content-type": "application/json" })
          .end(JSON.stringify({ message: "m".repeat(MiB) })),
    ],
    // fetch refuses header sections over 16 KiB, so this is as long as a header can be.
    ["a long request id", (r) => r.writeHead(404, { "x-request-id": "r".repeat(12 * 1024) }).end()],
    ["a long reason phrase", (r) => r.writeHead(500, "p".repeat(8 * 1024)).end()],
  ])("cuts %s short in the message and keeps it whole on the error", async (_, answer) => {
    const server = await serve((__, response) => answer(response));
    const error = await failureOf(studio(server, { maxRetries: 0 }).getProjectTree(ids.project));
    expect(error).toBeInstanceOf(StudioApiError);
    expect(error.message.length).toBeLessThan(1_000);
  });
});
