import { Agent, request } from "node:http";

// Keep-alive callers through a front door, half of them streaming, counting what does not come back whole.

/** One chat completion, streamed or not: true when it came whole (a stream up to its [DONE]). */
export async function chatOnce(port: number, agent: Agent, stream: boolean): Promise<boolean> {
  return (await chatServed(port, agent, stream)).whole;
}

/**
 * The same, with these headers; also which stand-in vLLM answered: its process id, which it puts in each
 * answer's id (`chatcmpl-<pid>`).
 */
export function chatServed(
  port: number,
  agent: Agent,
  stream: boolean,
  headers: Record<string, string> = {},
): Promise<{ whole: boolean; pid: number | undefined }> {
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
        headers: {
          ...headers,
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
        },
        timeout: 30_000,
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        const whole = () => (stream ? text.endsWith("data: [DONE]\n\n") : text.includes('"chat.completion"'));
        const pid = () => Number(/"id":"chatcmpl-(\d+)"/.exec(text)?.[1]) || undefined;
        res.on("end", () => resolve({ whole: res.statusCode === 200 && whole(), pid: pid() }));
        res.on("error", () => resolve({ whole: false, pid: undefined }));
      },
    );
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve({ whole: false, pid: undefined }));
    req.end(body);
  });
}

/**
 * 8 callers with keep-alive connections, half of them streaming, send at least `minimum` requests and keep
 * on until the trigger settles, bounded in count and time. Starts `trigger` once `triggerAfter` are sent.
 * `call` replaces what each caller sends (caller i of `callers`): true when the answer came whole.
 */
export async function loadThrough(
  port: number,
  options: {
    minimum: number;
    triggerAfter: number;
    trigger: () => Promise<unknown>;
    callers?: number;
    call?: (caller: number) => Promise<boolean>;
  },
) {
  const callers = options.callers ?? 8;
  const agent = new Agent({ keepAlive: true, maxSockets: callers });
  const call = options.call ?? ((caller: number) => chatOnce(port, agent, caller % 2 === 0));
  let sent = 0;
  let failed = 0;
  let triggered: Promise<unknown> | undefined;
  let triggerDone = false;
  const deadline = Date.now() + 180_000;
  const caller = async (index: number) => {
    while (sent < 20_000 && Date.now() < deadline && (sent < options.minimum || !triggerDone)) {
      sent += 1;
      if (sent === options.triggerAfter) {
        triggered = options.trigger().finally(() => {
          triggerDone = true;
        });
      }
      if (!(await call(index))) failed += 1;
    }
  };
  await Promise.all(Array.from({ length: callers }, (_, i) => caller(i)));
  await triggered;
  agent.destroy();
  return { sent, failed, triggerDone };
}
