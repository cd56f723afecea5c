// An ES module consumer: it must type-check against the installed tarballs under nodenext and bundler.
import {
  createChatClient,
  createStudioClient,
  findNodes,
  StudioApiError,
  StudioValidationError,
} from "@finetune-studio/client";
import { buildServeCommand, serveConfigFromRecommendations } from "@finetune-studio/serve-kit";
import type { ExperimentNode, ProjectTree, Recommendations, Trace } from "@finetune-studio/types";
import studio from "@finetune-studio/types/studio.openapi.json" with { type: "json" };

export async function scoreFirstTrace(tree: ProjectTree, traceId: string): Promise<Trace | undefined> {
  const client = createStudioClient({ baseUrl: "https://studio.example.net", token: "token" });
  const experiments: ExperimentNode[] = findNodes(tree, "experiment");
  try {
    return experiments.length > 0 ? await client.updateTrace(traceId, { score: 1 }) : undefined;
  } catch (error) {
    if (error instanceof StudioValidationError || error instanceof StudioApiError) return undefined;
    throw error;
  }
}

export function serve(recommendations: Recommendations): string[] {
  const input = serveConfigFromRecommendations(recommendations, {
    adapterPath: "./adapters/support",
    baseModelMapping: { "llama-3.1-8b-instruct": "meta-llama/Llama-3.1-8B-Instruct" },
  });
  return buildServeCommand(input).argv;
}

export const chat = createChatClient({ baseUrl: "http://127.0.0.1:8000" });
export const title: string = studio.info.title;
