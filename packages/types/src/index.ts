// Friendly names for the generated types. The generated files under ./generated are never edited by hand;
// this file only gives their parts names people can import.
import type * as Chat from "./generated/chat-completions.js";
import type * as Studio from "./generated/studio.js";

export type {
  components as ChatComponents,
  operations as ChatOperations,
  paths as ChatPaths,
} from "./generated/chat-completions.js";
// What each contract bounds (lengths, ranges, id formats), for the checks a client makes before it sends.
export { chatLimits, studioLimits } from "./generated/limits.js";
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

// Local chat-completions server
export type ChatCompletionRequest = ChatSchemas["ChatCompletionRequest"];
export type ChatMessage = ChatSchemas["ChatMessage"];
export type ChatCompletion = ChatSchemas["ChatCompletion"];
export type ChatCompletionChoice = ChatSchemas["ChatCompletionChoice"];
export type ChatCompletionMessage = ChatSchemas["ChatCompletionMessage"];
export type ChatCompletionUsage = ChatSchemas["ChatCompletionUsage"];
export type ModelList = ChatSchemas["ModelList"];
export type Model = ChatSchemas["Model"];
export type ChatErrorBody = ChatSchemas["ChatErrorBody"];
