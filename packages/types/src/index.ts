// Friendly names for the generated types. The generated files under ./generated are never edited by hand;
// this file only gives their parts names people can import.
import type * as Chat from "./generated/chat-completions.js";
import type * as Studio from "./generated/studio.js";

export type {
  components as ChatComponents,
  operations as ChatOperations,
  paths as ChatPaths,
} from "./generated/chat-completions.js";
// What each contract bounds (lengths, ranges, id formats), for the checks a client makes before it sends:
// `studioLimits`/`chatLimits` per document, and one export per operation and schema (`traceUpdateLimits`)
// so a bundle carries only the ones it reads.
export * from "./generated/limits.js";
export type { components, operations, paths } from "./generated/studio.js";

type StudioSchemas = Studio.components["schemas"];
type ChatSchemas = Chat.components["schemas"];

// Studio API: the project tree
/** The response of a project tree read: `{ project }`. */
export type ProjectTree = StudioSchemas["ProjectTree"];
export type ProjectNode = StudioSchemas["ProjectNode"];
export type DatasetNode = StudioSchemas["DatasetNode"];
export type SnapshotNode = StudioSchemas["SnapshotNode"];
export type FinetuningJobNode = StudioSchemas["FinetuningJobNode"];
export type ExperimentNode = StudioSchemas["ExperimentNode"];
/** Any node of the tree; `node.type` narrows it to its level. */
export type TreeNode = ProjectNode | DatasetNode | SnapshotNode | FinetuningJobNode | ExperimentNode;
/** The `type` of a tree node: `project`, `dataset`, `snapshot`, `finetuning-job` or `experiment`. */
export type TreeNodeType = TreeNode["type"];
/** The node statuses the vendor's SDK lists. */
export type KnownNodeStatus = StudioSchemas["KnownNodeStatus"];
/** A node status: a known one (offered by editors) or any other string, since the set is not closed. */
export type NodeStatus = KnownNodeStatus | (string & {});
export type DatasetMetadata = StudioSchemas["DatasetMetadata"];
export type SnapshotMetadata = StudioSchemas["SnapshotMetadata"];
export type FinetuningJobMetadata = StudioSchemas["FinetuningJobMetadata"];
export type ExperimentMetadata = StudioSchemas["ExperimentMetadata"];

// Studio API: recommendations
export type Recommendations = StudioSchemas["Recommendations"];
export type RecommendationStatus = StudioSchemas["RecommendationStatus"];
export type RecommendedModel = StudioSchemas["RecommendedModel"];
export type RecommendedExperiment = StudioSchemas["RecommendedExperiment"];
export type HyperparameterSet = StudioSchemas["HyperparameterSet"];

// Studio API: traces
export type Trace = StudioSchemas["Trace"];
export type TraceUpdate = StudioSchemas["TraceUpdate"];
export type TraceProcessingStatus = StudioSchemas["TraceProcessingStatus"];
/** An error body. Its shape is not guaranteed by the service. */
export type StudioErrorBody = StudioSchemas["ErrorBody"];

// Local chat-completions server (vLLM's OpenAI-compatible API): the request
export type ChatCompletionRequest = ChatSchemas["ChatCompletionRequest"];
/** One message of the conversation; `role` narrows it to its kind. */
export type ChatMessage = ChatSchemas["ChatMessage"];
export type ChatSystemMessage = ChatSchemas["ChatSystemMessage"];
export type ChatDeveloperMessage = ChatSchemas["ChatDeveloperMessage"];
export type ChatUserMessage = ChatSchemas["ChatUserMessage"];
export type ChatAssistantMessage = ChatSchemas["ChatAssistantMessage"];
export type ChatToolMessage = ChatSchemas["ChatToolMessage"];
export type ChatFunctionMessage = ChatSchemas["ChatFunctionMessage"];
/** The role of a message: `system`, `developer`, `user`, `assistant`, `tool` or `function`. */
export type ChatRole = ChatMessage["role"];
/** One part of a user message; `type` narrows it. */
export type ChatContentPart = ChatSchemas["ChatContentPart"];
export type ChatContentPartText = ChatSchemas["ChatContentPartText"];
export type ChatContentPartImage = ChatSchemas["ChatContentPartImage"];
export type ChatContentPartInputAudio = ChatSchemas["ChatContentPartInputAudio"];
export type ChatContentPartAudioUrl = ChatSchemas["ChatContentPartAudioUrl"];
export type ChatContentPartVideoUrl = ChatSchemas["ChatContentPartVideoUrl"];
export type ChatContentPartRefusal = ChatSchemas["ChatContentPartRefusal"];
export type ChatTool = ChatSchemas["ChatTool"];
export type ChatFunctionDefinition = ChatSchemas["ChatFunctionDefinition"];
export type ChatToolChoice = ChatSchemas["ChatToolChoice"];
export type ChatResponseFormat = ChatSchemas["ChatResponseFormat"];
export type ChatStreamOptions = ChatSchemas["ChatStreamOptions"];
export type ChatStructuredOutputs = ChatSchemas["ChatStructuredOutputs"];

// Local chat-completions server: the completion
export type ChatCompletion = ChatSchemas["ChatCompletion"];
export type ChatCompletionChoice = ChatSchemas["ChatCompletionChoice"];
export type ChatCompletionMessage = ChatSchemas["ChatCompletionMessage"];
export type ChatCompletionUsage = ChatSchemas["ChatCompletionUsage"];
export type ChatCompletionLogprobs = ChatSchemas["ChatCompletionLogprobs"];
export type ChatCompletionTokenLogprob = ChatSchemas["ChatCompletionTokenLogprob"];
export type ChatPromptTokenLogprobs = ChatSchemas["ChatPromptTokenLogprobs"];
/** Why generation stopped: `stop`, `length`, `tool_calls`, ... (null in a stream until the last chunk). */
export type ChatFinishReason = ChatSchemas["ChatFinishReason"];
/** A complete tool call, in a reply or sent back in an assistant message. */
export type ChatToolCall = ChatSchemas["ChatToolCall"];
export type ChatFunctionCall = ChatSchemas["ChatFunctionCall"];

// Local chat-completions server: the stream (`stream: true`)
/** One `data:` event of a stream: a chunk of the reply. */
export type ChatCompletionChunk = ChatSchemas["ChatCompletionChunk"];
export type ChatCompletionChunkChoice = ChatSchemas["ChatCompletionChunkChoice"];
export type ChatCompletionDelta = ChatSchemas["ChatCompletionDelta"];
/** A piece of a tool call in a stream; pieces with the same `index` append to one call. */
export type ChatToolCallDelta = ChatSchemas["ChatToolCallDelta"];
/** The error object vLLM sends inside a stream after its 200, before `data: [DONE]`. */
export type ChatCompletionStreamError = ChatSchemas["ChatCompletionStreamError"];
/** What one `data:` event holds (other than the `[DONE]` terminator): a chunk or a stream error. */
export type ChatCompletionStreamEvent = ChatSchemas["ChatCompletionStreamEvent"];

// Local chat-completions server: models, adapters, errors
export type ModelList = ChatSchemas["ModelList"];
export type Model = ChatSchemas["Model"];
export type LoadLoraAdapterRequest = ChatSchemas["LoadLoraAdapterRequest"];
export type UnloadLoraAdapterRequest = ChatSchemas["UnloadLoraAdapterRequest"];
export type ChatErrorBody = ChatSchemas["ChatErrorBody"];
