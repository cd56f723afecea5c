// Bodies shaped like the contract's examples, for unit tests.
import type { ChatCompletion, ModelList } from "@finetune-studio/types";

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
};
