// Bodies for unit tests: the Studio contract's own named examples (the bodies Prism serves), and chat
// bodies shaped like the chat contract's.
import type {
  ChatCompletion,
  ChatCompletionRequest,
  ModelList,
  ProjectTree,
  Recommendations,
  Trace,
} from "@finetune-studio/types";
import studioDocument from "@finetune-studio/types/studio.openapi.json" with { type: "json" };

export const completion: ChatCompletion = {
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1763820000,
  model: "support-lora",
  choices: [{ index: 0, message: { role: "assistant", content: "Open Settings." }, finish_reason: "stop" }],
  usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 },
};

export const modelList: ModelList = {
  object: "list",
  data: [
    { id: "meta-llama/Llama-3.1-8B-Instruct", object: "model", parent: null },
    { id: "support-lora", object: "model", parent: "meta-llama/Llama-3.1-8B-Instruct" },
  ],
};

export const chatRequest = {
  model: "support-lora",
  messages: [{ role: "user", content: "How do I reset my password?" }],
  max_tokens: 64,
} satisfies ChatCompletionRequest;

const examples = studioDocument.components.examples as Record<string, { value: unknown }>;
const example = <T>(name: string): T => structuredClone(examples[name]?.value) as T;

export const fullTree = example<ProjectTree>("ProjectTreeFull");
export const emptyTree = example<ProjectTree>("ProjectTreeEmpty");
export const completedRecommendations = example<Recommendations>("RecommendationsCompleted");
export const processingRecommendations = example<Recommendations>("RecommendationsProcessing");
export const failedRecommendations = example<Recommendations>("RecommendationsFailed");
export const scoredTrace = example<Trace>("TraceScored");

export const ids = {
  project: "6f1c2a8e-4b7d-4e5a-9c3f-2d8b7a1e0f45",
  snapshot: "0b5e9d4c-7a21-4f3e-8d6b-1c9a2e4f7b80",
  trace: "3d2f8a61-95c4-4b0e-a7d3-6e1f0c9b8a27",
} as const;
