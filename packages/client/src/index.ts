// The public surface of @finetune-studio/client. Everything exported is named here; src/internal is not API.

export type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionRequest,
  ChatMessage,
  DatasetNode,
  ExperimentNode,
  FinetuningJobNode,
  Model,
  ModelList,
  ProjectNode,
  ProjectTree,
  RecommendationStatus,
  Recommendations,
  RecommendedExperiment,
  RecommendedModel,
  SnapshotNode,
  Trace,
  TraceUpdate,
  TreeNode,
  TreeNodeType,
} from "@finetune-studio/types";
export {
  type ChatClient,
  type ChatClientOptions,
  createChatClient,
  type StreamRequestOptions,
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
  StudioStreamError,
  type StudioStreamServerError,
  StudioTimeoutError,
  StudioValidationError,
} from "./errors.js";
export type { StudioLogger, StudioRequestLog } from "./logger.js";
export type { ClientOptions, FetchFunction, RequestOptions } from "./options.js";
export {
  ChatCompletionStream,
  type ChatCompletionStreamOptions,
} from "./stream/chat-completion-stream.js";
export type { StreamedChatCompletion } from "./stream/streamed-completion.js";
export {
  type CompletedRecommendations,
  createStudioClient,
  type StudioClient,
  type StudioClientOptions,
  type WaitForRecommendationsOptions,
} from "./studio.js";
export { findNodes, flattenTree, type NodeOfType, type TreeEntry, walkTree } from "./tree.js";
