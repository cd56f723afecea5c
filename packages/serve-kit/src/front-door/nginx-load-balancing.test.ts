import { readFileSync } from "node:fs";
import { createChatClient } from "@finetune-studio/client";
import {
  getFreePort,
  type ManagedProcess,
  type PrismMock,
  startPrism,
  waitForHttp,
} from "@finetune-studio/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nginxConfig } from "../index.js";
import { nginxBinary, nginxPrefix, nginxTest, startNginx } from "../test/nginx.js";
import { MAX_READ_TIMEOUT_SECONDS } from "./nginx-config.js";

// Real nginx, on loopback with the generated config, in front of two chat-completions mocks.

describe("nginxConfig in front of two instances", { timeout: 120_000 }, () => {
  let instances: PrismMock[] = [];
  let nginx: ManagedProcess | undefined;
  let accessLog = "";
  let url = "";

  beforeAll(async () => {
    instances = await Promise.all([startPrism("chat"), startPrism("chat")]);
    const listen = await getFreePort();
    const prefix = nginxPrefix(
      nginxConfig({ upstreams: instances.map((instance) => `127.0.0.1:${instance.port}`), listen }),
    );
    accessLog = prefix.accessLog;
    const binary = await nginxBinary();
    nginxTest(binary, prefix);
    nginx = startNginx(binary, prefix);
    url = `http://127.0.0.1:${listen}`;
    await waitForHttp(`${url}/health`, { process: nginx, timeoutMs: 30_000 });
  }, 120_000);

  afterAll(async () => {
    await nginx?.stop();
    await Promise.all(instances.map((instance) => instance.stop()));
  });

  it("passes completions to both instances and returns valid chat completions", async () => {
    const chat = createChatClient({ baseUrl: url });
    const request = {
      model: "support-lora",
      messages: [{ role: "user" as const, content: "Hi" }],
      max_tokens: 8,
    };
    // Some one after the other, some at once: least_conn spreads both kinds.
    for (let i = 0; i < 4; i++) expect(typeof (await chat.text(request))).toBe("string");
    const together = await Promise.all(Array.from({ length: 6 }, () => chat.complete(request)));
    for (const completion of together) {
      expect(completion).toMatchObject({
        object: "chat.completion",
        choices: [{ message: { role: "assistant" } }],
      });
    }
    const served = readFileSync(accessLog, "utf8")
      .trim()
      .split("\n")
      .map((line) => line.split(" "));
    const upstreams = new Set(served.map(([upstream]) => upstream));
    expect([...upstreams].sort()).toEqual(instances.map((instance) => `127.0.0.1:${instance.port}`).sort());
    for (const [, status] of served) expect(status).toBe("200");
  });

  it("passes /health and /v1/models through", async () => {
    const chat = createChatClient({ baseUrl: url });
    expect(await chat.health()).toBe(true);
    expect((await chat.listModels()).object).toBe("list");
  });
});

describe("nginx accepts every config the builder writes", () => {
  it.each([
    ["IPv4 loopback", { upstreams: ["127.0.0.1:8001", "127.0.0.1:8002"], listen: 8000 }],
    ["IPv6 and a host name", { upstreams: ["[::1]:8001", "localhost:8002"], listen: 8080, host: "::1" }],
    [
      "all interfaces and a long timeout",
      { upstreams: ["10.0.0.5:8000"], listen: 80, host: "0.0.0.0", readTimeoutSeconds: 3600 },
    ],
    [
      "the longest read timeout the library accepts",
      { upstreams: ["127.0.0.1:8001"], listen: 8000, readTimeoutSeconds: MAX_READ_TIMEOUT_SECONDS },
    ],
  ])("%s (nginx -t)", async (_name, options) => {
    const binary = await nginxBinary();
    expect(() => nginxTest(binary, nginxPrefix(nginxConfig(options)))).not.toThrow();
  });
});
