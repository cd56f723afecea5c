import { getFreePort, startProcess, waitForHttp } from "@finetune-studio/testing";
import { describe, expect, it } from "vitest";
import { FAKE_VLLM_BIN, fakeVllmEnv } from "./cli-process.js";
import { stoppedAfterEach } from "./stopped-after-each.js";

// The stand-in vLLM without Prism (the CLI tests' default) still holds a chat completion request to the
// contract: a request the CLI gets wrong fails the test that sent it, as it would against Prism or vLLM.

const running = stoppedAfterEach();

async function standIn(): Promise<string> {
  const port = await getFreePort();
  const proc = startProcess(`${FAKE_VLLM_BIN}/vllm`, ["serve", "acme/m", "--port", String(port)], {
    env: fakeVllmEnv().env,
  });
  running.push(proc);
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/health`, { process: proc, isReady: (status) => status === 200 });
  return url;
}

const chat = (url: string, body: string) =>
  fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });

describe("the stand-in vLLM, answering itself", { timeout: 60_000 }, () => {
  it("answers a request the contract allows, and refuses with vLLM's 400 one it does not", async () => {
    const url = await standIn();
    const good = await chat(
      url,
      JSON.stringify({ model: "acme/m", messages: [{ role: "user", content: "Hi" }] }),
    );
    expect(good.status).toBe(200);
    expect((await good.json()).object).toBe("chat.completion");

    const badRole = await chat(
      url,
      JSON.stringify({ model: "acme/m", messages: [{ role: "wizard", content: "Hi" }] }),
    );
    expect(badRole.status).toBe(400);
    expect(await badRole.json()).toMatchObject({ object: "error", type: "BadRequestError", code: 400 });

    const noMessages = await chat(url, JSON.stringify({ model: "acme/m" }));
    expect(noMessages.status).toBe(400);
    expect((await noMessages.json()).message).toContain("messages");

    expect((await chat(url, "not json")).status).toBe(400);
  });
});
