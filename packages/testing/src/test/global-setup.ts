// Starts `prism mock --errors` on the chat contract once for the whole run, hands its URL to the tests
// (inject('chatPrismUrl')) and always stops it.
import type { TestProject } from "vitest/node";
import { startPrism } from "../prism.js";

declare module "vitest" {
  export interface ProvidedContext {
    chatPrismUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const prism = await startPrism("chat");
  project.provide("chatPrismUrl", prism.url);
  return () => prism.stop();
}
