#!/usr/bin/env node
// `pnpm start`: a Prism mock of the Studio API, a streaming mock of the chat server, the docs site, and a
// walkthrough of the SDK against them.
import { type Child, lastLines, startChatMock, startDocs, startStudioMock } from "./children.js";
import { parseOptions, UsageError, usage } from "./options.js";
import { assertPortsFree } from "./port-check.js";
import { printSummary } from "./summary.js";
import { runWalkthrough } from "./walkthrough.js";

const children: Child[] = [];
let stopping = false;

async function shutdown(code: number): Promise<never> {
  stopping = true;
  await Promise.all(children.map((child) => child.process.stop()));
  process.exit(code);
}

function fail(message: string): Promise<never> {
  process.stderr.write(`sandbox: ${message}\n`);
  return shutdown(1);
}

async function main() {
  let options: ReturnType<typeof parseOptions>;
  try {
    options = parseOptions(process.argv.slice(2), process.env);
    if (options) await assertPortsFree(options);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`sandbox: ${error.message}\n`);
    process.exit(2);
  }
  if (!options) {
    process.stdout.write(`${usage}\n`);
    return;
  }

  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      if (!stopping) process.stdout.write("\nStopping the mocks and the docs server…\n");
      void shutdown(0);
    });
  }

  process.stdout.write("Starting the Studio API mock, the chat-completions mock and the docs site…\n");
  try {
    const started = await Promise.allSettled([
      startStudioMock(options.studioPort),
      startChatMock(options.chatPort),
      startDocs(options.docsPort),
    ]);
    for (const result of started) if (result.status === "fulfilled") children.push(result.value);
    const failed = started.find((result) => result.status === "rejected");
    if (failed)
      return fail(
        `could not start: ${failed.reason instanceof Error ? failed.reason.message : failed.reason}`,
      );
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }

  // A child that dies takes the sandbox down, with what it said last.
  for (const child of children) {
    void child.process.exited.then((code) => {
      if (!stopping)
        void fail(`the ${child.name} stopped (exit ${code}). Its last lines:\n${lastLines(child)}`);
    });
  }

  const [studio, chat, docs] = children as [Child, Child, Child];
  try {
    await runWalkthrough({ studio: studio.url, chat: chat.url });
  } catch (error) {
    return fail(`the walkthrough failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  printSummary({ studio: studio.url, chat: chat.url, docs: docs.url });
  if (options.once) return shutdown(0);
  process.stdout.write("\nServing until Ctrl-C.\n");
}

await main();
