// A CommonJS consumer: under nodenext, TypeScript >= 5.8 lets it import the ESM-only packages,
// as Node >= 20.19 does at run time with require(esm).
import { createStudioClient } from "@finetune-studio/client";
import { buildServeCommand } from "@finetune-studio/serve-kit";
import type { Trace } from "@finetune-studio/types";

export const client = createStudioClient({ baseUrl: "http://127.0.0.1:4010", token: "token" });
export const argv: string[] = buildServeCommand({ kind: "full", model: "org/model" }).argv;
export type Scored = Pick<Trace, "score" | "feedback">;
