import { createServer, type Server } from "node:net";
import { getFreePort } from "@finetune-studio/testing";
import { afterEach, describe, expect, it } from "vitest";
import { parseOptions } from "./options.js";
import { assertPortsFree } from "./port-check.js";

describe("parseOptions", () => {
  it.each([
    ["defaults", [], {}, { studioPort: 4010, chatPort: 4011, docsPort: 4000, once: false }],
    [
      "environment",
      [],
      { SANDBOX_CHAT_PORT: "5011" },
      { studioPort: 4010, chatPort: 5011, docsPort: 4000, once: false },
    ],
    [
      "flags over environment",
      ["--chat-port", "6011", "--once"],
      { SANDBOX_CHAT_PORT: "5011" },
      { studioPort: 4010, chatPort: 6011, docsPort: 4000, once: true },
    ],
  ] as const)("%s", (_name, argv, env, want) => {
    expect(parseOptions([...argv], env)).toEqual(want);
  });

  it("returns nothing for --help", () => {
    expect(parseOptions(["--help"], {})).toBeUndefined();
  });

  it.each([
    [["--studio-port", "http"], /--studio-port must be a port number from 1 to 65535, got "http"/],
    [["--docs-port", "70000"], /--docs-port must be a port number .* got "70000"/],
    [["--studio-port", "4011"], /ports must differ, got 4011, 4011, 4000/],
    [["--verbose"], /Unknown option '--verbose'/],
  ])("refuses %j", (argv, message) => {
    expect(() => parseOptions(argv, {})).toThrow(message);
  });

  it("names the environment variable when it is the bad value", () => {
    expect(() => parseOptions([], { SANDBOX_DOCS_PORT: "-1" })).toThrow(
      /SANDBOX_DOCS_PORT must be a port number/,
    );
  });
});

describe("assertPortsFree", () => {
  let blocker: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (blocker ? blocker.close(() => resolve()) : resolve())));

  it("names a busy port and how to choose another", async () => {
    const busy = await getFreePort();
    blocker = createServer();
    await new Promise<void>((resolve) => blocker?.listen(busy, "127.0.0.1", resolve));
    const options = {
      studioPort: await getFreePort(),
      chatPort: busy,
      docsPort: await getFreePort(),
      once: true,
    };
    await expect(assertPortsFree(options)).rejects.toThrow(
      `port ${busy} for the chat-completions mock is busy: stop what uses it, or choose another with --chat-port <port> (or SANDBOX_CHAT_PORT)`,
    );
  });
});
