import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

export interface Contract {
  /** Page the Redoc reference is written to. */
  readonly page: string;
  /** File name of the downloadable bundled document, next to the pages. */
  readonly download: string;
  readonly title: string;
  /** The bundled OpenAPI document, as published by @finetune-studio/types. */
  readonly document: {
    info: { title: string; version: string; summary?: string; description?: string };
  } & Record<string, unknown>;
}

function load(specifier: string): Contract["document"] {
  return JSON.parse(readFileSync(require.resolve(specifier), "utf8"));
}

/** The two contracts, read from the bundled documents that @finetune-studio/types generates and ships. */
export function loadContracts(): { studio: Contract; chat: Contract } {
  return {
    studio: {
      page: "studio-api.html",
      download: "studio.openapi.json",
      title: "Studio API reference",
      document: load("@finetune-studio/types/studio.openapi.json"),
    },
    chat: {
      page: "chat-completions-api.html",
      download: "chat-completions.openapi.json",
      title: "Chat-completions API reference",
      document: load("@finetune-studio/types/chat-completions.openapi.json"),
    },
  };
}
