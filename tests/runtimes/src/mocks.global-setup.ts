// One shared set of mocks for the whole run, handed to every runtime and to the browser: Prism on both
// contracts (`--errors`, so a request that breaks the contract fails) and the fault server. Always stopped.
import { type PrismMock, startPrism } from "@finetune-studio/testing";
import type { TestProject } from "vitest/node";
import { type FaultServer, startFaultServer } from "./fault-server.js";

declare module "vitest" {
  export interface ProvidedContext {
    studioMockUrl: string;
    chatMockUrl: string;
    faultServerUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = await Promise.allSettled([startPrism("studio"), startPrism("chat"), startFaultServer()]);
  const stopAll = async () => {
    await Promise.all(
      started.map((result) => {
        if (result.status === "rejected") return undefined;
        const server = result.value as PrismMock | FaultServer;
        return "stop" in server ? server.stop() : server.close();
      }),
    );
  };
  const failure = started.find((result) => result.status === "rejected");
  if (failure) {
    await stopAll();
    throw failure.reason;
  }
  const [studio, chat, faults] = started.map(
    (result) => (result as PromiseFulfilledResult<unknown>).value,
  ) as [PrismMock, PrismMock, FaultServer];
  project.provide("studioMockUrl", studio.url);
  project.provide("chatMockUrl", chat.url);
  project.provide("faultServerUrl", faults.url);
  return stopAll;
}
