import { describe, expectTypeOf, it } from "vitest";
import type {
  ChatAssistantMessage,
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionDelta,
  ChatCompletionRequest,
  ChatCompletionStreamError,
  ChatCompletionStreamEvent,
  ChatContentPart,
  ChatContentPartText,
  ChatMessage,
  ChatPaths,
  ChatRole,
  ChatTool,
  ChatToolCall,
  ChatToolCallDelta,
  ChatToolMessage,
  ExperimentNode,
  FinetuningJobNode,
  KnownNodeStatus,
  LoadLoraAdapterRequest,
  NodeStatus,
  ProjectTree,
  paths,
  RecommendationStatus,
  Recommendations,
  RecommendedModel,
  Trace,
  TraceProcessingStatus,
  TraceUpdate,
  TreeNode,
  TreeNodeType,
} from "./index.js";

describe("Trace", () => {
  it("has every field required, with the spec's nullability", () => {
    expectTypeOf<Trace["score"]>().toEqualTypeOf<number | null>();
    expectTypeOf<Trace["feedback"]>().toEqualTypeOf<string | null>();
    expectTypeOf<Trace["projectId"]>().toEqualTypeOf<string | null>();
    expectTypeOf<Trace["modelId"]>().toEqualTypeOf<string>();
    expectTypeOf<Trace["addedToDataset"]>().toEqualTypeOf<boolean>();
    // @ts-expect-error every field is required
    const partial: Trace = { id: "x" };
    void partial;
  });

  it("closes processingStatus to the three published values", () => {
    expectTypeOf<TraceProcessingStatus>().toEqualTypeOf<"none" | "processing" | "failed">();
  });
});

describe("TraceUpdate", () => {
  it("makes every field optional, and only feedback and projectId nullable", () => {
    expectTypeOf<TraceUpdate>().toEqualTypeOf<{
      score?: number;
      feedback?: string | null;
      projectId?: string | null;
    }>();
    // @ts-expect-error score cannot be null
    const nullScore: TraceUpdate = { score: null };
    void nullScore;
  });
});

describe("Recommendations", () => {
  it("closes status and accepts null lists and hyperparameters", () => {
    expectTypeOf<RecommendationStatus>().toEqualTypeOf<"processing" | "completed" | "failed">();
    expectTypeOf<Recommendations["recommended_models"]>().toEqualTypeOf<
      RecommendedModel[] | null | undefined
    >();
    expectTypeOf<NonNullable<RecommendedModel["lora_hyperparameters"]>>().toHaveProperty(
      "learning_rate_multiplier",
    );
    expectTypeOf<RecommendedModel["reason_for_recommendation"]>().toEqualTypeOf<string | null | undefined>();
    // @ts-expect-error unknown status
    const done: RecommendationStatus = "done";
    void done;
  });
});

describe("the project tree", () => {
  it("narrows a node by its type", () => {
    const visit = (node: TreeNode) => {
      if (node.type === "experiment") {
        expectTypeOf(node).toEqualTypeOf<ExperimentNode>();
        expectTypeOf(node.label).toEqualTypeOf<string>();
      } else if (node.type === "project") {
        expectTypeOf(node.name).toEqualTypeOf<string>();
        // @ts-expect-error a project has a name, not a label
        void node.label;
      } else if (node.type === "finetuning-job") {
        expectTypeOf(node).toEqualTypeOf<FinetuningJobNode>();
        expectTypeOf(node.children).toEqualTypeOf<ExperimentNode[] | undefined>();
      }
    };
    void visit;
    expectTypeOf<TreeNodeType>().toEqualTypeOf<
      "project" | "dataset" | "snapshot" | "finetuning-job" | "experiment"
    >();
    expectTypeOf<ProjectTree["project"]["type"]>().toEqualTypeOf<"project">();
  });

  it("types experiment metadata as the vendor's SDK does, every field optional", () => {
    type Metadata = NonNullable<ExperimentNode["metadata"]>;
    expectTypeOf<Metadata["base_model_id"]>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Metadata["experiment_number"]>().toEqualTypeOf<number | undefined>();
    expectTypeOf<Metadata["id"]>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Metadata["model_id"]>().toEqualTypeOf<string | undefined>();
  });

  it("offers the known node statuses and still accepts any other string", () => {
    expectTypeOf<"succeeded">().toMatchTypeOf<NodeStatus>();
    expectTypeOf<"archived">().toMatchTypeOf<NodeStatus>();
    expectTypeOf<KnownNodeStatus>().toEqualTypeOf<
      | "processing"
      | "completed"
      | "failed"
      | "pending"
      | "queued"
      | "running"
      | "deploying"
      | "succeeded"
      | "deleted"
    >();
  });
});

describe("paths", () => {
  it("types the three operations", () => {
    expectTypeOf<
      paths["/api/v1/traces/{id}"]["put"]["responses"][200]["content"]["application/json"]
    >().toEqualTypeOf<Trace>();
    expectTypeOf<
      paths["/api/v1/public/projects/{projectId}"]["get"]["parameters"]["path"]["projectId"]
    >().toEqualTypeOf<string>();
  });
});

describe("chat completions", () => {
  it("requires only messages, as vLLM does, and lets content be null in replies", () => {
    expectTypeOf<ChatCompletionRequest["messages"]>().toEqualTypeOf<ChatMessage[]>();
    expectTypeOf<ChatCompletionRequest["max_tokens"]>().toEqualTypeOf<number | null | undefined>();
    expectTypeOf<ChatCompletionRequest["max_completion_tokens"]>().toEqualTypeOf<number | null | undefined>();
    expectTypeOf<ChatCompletionRequest["temperature"]>().toEqualTypeOf<number | null | undefined>();
    const minimal: ChatCompletionRequest = { model: "m", messages: [{ role: "user", content: "hi" }] };
    void minimal;
    type Content = ChatCompletion["choices"][number]["message"]["content"];
    expectTypeOf<Content>().toEqualTypeOf<string | null>();
  });

  it("narrows a message by its role", () => {
    const visit = (message: ChatMessage) => {
      if (message.role === "tool") {
        expectTypeOf(message).toEqualTypeOf<ChatToolMessage>();
        expectTypeOf(message.tool_call_id).toEqualTypeOf<string>();
      } else if (message.role === "assistant") {
        expectTypeOf(message).toEqualTypeOf<ChatAssistantMessage>();
        expectTypeOf(message.tool_calls).toEqualTypeOf<ChatToolCall[] | null | undefined>();
      }
    };
    void visit;
    expectTypeOf<ChatRole>().toEqualTypeOf<
      "system" | "developer" | "user" | "assistant" | "tool" | "function"
    >();
    const toolTurn: ChatMessage = {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }],
    };
    void toolTurn;
    // @ts-expect-error a tool message answers a call by its id
    const orphan: ChatMessage = { role: "tool", content: "42" };
    void orphan;
  });

  it("types free-form objects (tool parameters, template variables) as records of anything", () => {
    expectTypeOf<ChatTool["function"]["parameters"]>().toEqualTypeOf<
      Record<string, unknown> | null | undefined
    >();
    expectTypeOf<ChatCompletionRequest["chat_template_kwargs"]>().toEqualTypeOf<
      Record<string, unknown> | null | undefined
    >();
  });

  it("narrows a content part by its type", () => {
    const visit = (part: ChatContentPart) => {
      if (part.type === "image_url") expectTypeOf(part.image_url.url).toEqualTypeOf<string>();
      if (part.type === "text") expectTypeOf(part).toEqualTypeOf<ChatContentPartText>();
    };
    void visit;
  });

  it("types the stream's chunks and its error event", () => {
    expectTypeOf<ChatCompletionChunk["object"]>().toEqualTypeOf<"chat.completion.chunk">();
    expectTypeOf<ChatCompletionDelta["content"]>().toEqualTypeOf<string | null | undefined>();
    expectTypeOf<ChatToolCallDelta["index"]>().toEqualTypeOf<number>();
    expectTypeOf<ChatCompletionStreamEvent>().toEqualTypeOf<
      ChatCompletionChunk | ChatCompletionStreamError
    >();
    expectTypeOf<ChatCompletionStreamError["error"]["message"]>().toEqualTypeOf<string>();
    expectTypeOf<
      ChatPaths["/v1/chat/completions"]["post"]["responses"][200]["content"]["text/event-stream"]
    >().toEqualTypeOf<ChatCompletionStreamEvent>();
  });

  it("types the runtime LoRA requests", () => {
    expectTypeOf<LoadLoraAdapterRequest>().toEqualTypeOf<{
      lora_name: string;
      lora_path: string;
      load_inplace?: boolean;
    }>();
    expectTypeOf<
      ChatPaths["/v1/load_lora_adapter"]["post"]["responses"][200]["content"]["text/plain"]
    >().toEqualTypeOf<string>();
  });
});
