import { Agent, request } from "node:http";

// Keep-alive callers through a front door, half of them streaming, counting what does not come back whole.

/** One chat completion, streamed or not: true when it came whole (a stream up to its [DONE]). */
export function chatOnce(port: number, agent: Agent, stream: boolean): Promise<boolean> {
  const body = JSON.stringify({
    model: "acme/m",
    messages: [{ role: "user", content: "hi" }],
    max_tokens: 4,
    stream,
  });
  return new Promise((resolve) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/v1/chat/completions",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
        timeout: 30_000,
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        const whole = () => (stream ? text.endsWith("data: [DONE]\n\n") : text.includes('"chat.completion"'));
        res.on("end", () => resolve(res.statusCode === 200 && whole()));
        res.on("error", () => resolve(false));
      },
    );
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(false));
    req.end(body);
  });
}

/**
 * 8 callers with keep-alive connections, half of them streaming, send at least `minimum` requests and keep
 * on until the trigger settles, bounded in count and time. Starts `trigger` once `triggerAfter` are sent.
 */
export async function loadThrough(
  port: number,
  options: { minimum: number; triggerAfter: number; trigger: () => Promise<unknown> },
) {
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  let sent = 0;
  let failed = 0;
  let triggered: Promise<unknown> | undefined;
  let triggerDone = false;
  const deadline = Date.now() + 180_000;
  const caller = async (stream: boolean) => {
    while (sent < 20_000 && Date.now() < deadline && (sent < options.minimum || !triggerDone)) {
      sent += 1;
      if (sent === options.triggerAfter) {
        triggered = options.trigger().finally(() => {
          triggerDone = true;
        });
      }
      if (!(await chatOnce(port, agent, stream))) failed += 1;
    }
  };
  await Promise.all(Array.from({ length: 8 }, (_, i) => caller(i % 2 === 0)));
  await triggered;
  agent.destroy();
  return { sent, failed, triggerDone };
}
