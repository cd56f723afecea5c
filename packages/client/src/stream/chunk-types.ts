// TEMPORARY: the chunk and completion shapes as vLLM's OpenAI-compatible server sends them, declared here
// until the chat contract (openapi/) describes the stream and @finetune-studio/types generates them. Then
// this file is deleted and the stream files import ChatCompletionChunk and ChatCompletion from the types.

export interface ChatCompletionUsage {
  prompt_tokens: number;
  completion_tokens?: number | null;
  total_tokens: number;
  [field: string]: unknown;
}

export interface ChatCompletionTokenLogprob {
  token: string;
  logprob: number;
  bytes?: number[] | null;
  top_logprobs?: { token: string; logprob: number; bytes?: number[] | null }[];
}

export interface ChatCompletionToolCallDelta {
  index: number;
  id?: string | null;
  type?: "function" | null;
  function?: { name?: string | null; arguments?: string | null } | null;
}

export interface ChatCompletionDelta {
  role?: string | null;
  content?: string | null;
  reasoning?: string | null;
  /** Older vLLM servers name the reasoning this way. */
  reasoning_content?: string | null;
  tool_calls?: ChatCompletionToolCallDelta[] | null;
  [field: string]: unknown;
}

export interface ChatCompletionChunkChoice {
  index: number;
  delta: ChatCompletionDelta;
  logprobs?: { content?: ChatCompletionTokenLogprob[] | null } | null;
  finish_reason?: string | null;
  stop_reason?: number | string | null;
  [field: string]: unknown;
}

export interface ChatCompletionChunk {
  id: string;
  object: "chat.completion.chunk";
  created: number;
  model: string;
  /** Empty in the final usage chunk (`stream_options.include_usage`). */
  choices: ChatCompletionChunkChoice[];
  usage?: ChatCompletionUsage | null;
  system_fingerprint?: string | null;
  [field: string]: unknown;
}

export interface ChatCompletionToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface ChatCompletionMessage {
  role: string;
  content: string | null;
  reasoning?: string | null;
  reasoning_content?: string | null;
  tool_calls?: ChatCompletionToolCall[];
}

export interface ChatCompletionChoice {
  index: number;
  message: ChatCompletionMessage;
  finish_reason: string | null;
  stop_reason?: number | string | null;
  logprobs?: { content: ChatCompletionTokenLogprob[] } | null;
}

export interface ChatCompletion {
  id: string;
  object: "chat.completion";
  created: number;
  model: string;
  choices: ChatCompletionChoice[];
  usage?: ChatCompletionUsage | null;
  system_fingerprint?: string | null;
}
