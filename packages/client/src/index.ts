// The public surface of @finetune-studio/client. Everything exported is named here; src/internal is not API.

export type {
  ChatCompletion,
  ChatCompletionRequest,
  ChatMessage,
  Model,
  ModelList,
} from "@finetune-studio/types";
export {
  type ChatClient,
  type ChatClientOptions,
  createChatClient,
  type WaitUntilReadyOptions,
} from "./chat.js";
export {
  StudioApiError,
  type StudioApiErrorDetails,
  StudioAuthError,
  StudioConnectionError,
  StudioError,
  StudioNotFoundError,
  StudioRateLimitError,
  StudioRecommendationsFailedError,
  StudioServerError,
  StudioTimeoutError,
  StudioValidationError,
} from "./errors.js";
export type { StudioLogger, StudioRequestLog } from "./logger.js";
export type { FetchFunction, RequestOptions } from "./options.js";
