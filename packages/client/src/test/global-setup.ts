// Starts `prism mock --errors` on both contracts once for the whole run, waits until they answer, hands
// their URLs to the tests (inject('studioMockUrl') / inject('chatMockUrl')) and always stops them.
import { type PrismMock, startPrism } from "@finetune-studio/testing";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    studioMockUrl: string;
    chatMockUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = await Promise.allSettled([startPrism("studio"), startPrism("chat")]);
  const mocks = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
  const stopAll = async () => {
    await Promise.all(mocks.map((mock: PrismMock) => mock.stop()));
  };
  const failure = started.find((result) => result.status === "rejected");
  if (failure) {
    await stopAll();
    throw failure.reason;
  }
  const [studio, chat] = mocks as [PrismMock, PrismMock];
  project.provide("studioMockUrl", studio.url);
  project.provide("chatMockUrl", chat.url);
  return stopAll;
}
