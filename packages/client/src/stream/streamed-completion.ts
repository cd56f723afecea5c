import type { ChatCompletion, ChatCompletionUsage } from "@finetune-studio/types";

/**
 * The completion a stream assembles: a ChatCompletion, except that `usage` is there only when the server sent
 * it (`stream_options: { include_usage: true }`, or a server started with `--enable-force-include-usage`).
 */
export type StreamedChatCompletion = Omit<ChatCompletion, "usage"> & { usage?: ChatCompletionUsage };
