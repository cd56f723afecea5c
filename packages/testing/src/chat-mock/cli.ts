// `node dist/cli.js [--port N] [--token-delay-ms N]`: the streaming chat mock as a process, for
// the sandbox. Prints its URL once it listens; stops on SIGTERM or SIGINT.
import { parseArgs } from "node:util";
import { startChatMock } from "./server.js";

const { values } = parseArgs({
  options: { port: { type: "string" }, "token-delay-ms": { type: "string" } },
});

function integerOption(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) {
    console.error(`--${name} must be a whole number of 0 or more, got ${JSON.stringify(value)}`);
    process.exit(2);
  }
  return number;
}

const mock = await startChatMock({
  port: integerOption("port", values.port),
  tokenDelayMs: integerOption("token-delay-ms", values["token-delay-ms"]),
  apiKey: process.env.CHAT_MOCK_API_KEY,
});
console.log(`chat mock listening on ${mock.url}`);
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => {
    void mock.stop().then(() => process.exit(0));
  });
}
