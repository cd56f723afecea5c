import { describe, expectTypeOf, it } from "vitest";
import type {
  ChatCompletion,
  ChatCompletionRequest,
  ExperimentNode,
  FinetuningJobNode,
  KnownNodeStatus,
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
  it("requires model, messages and max_tokens, and lets content be null in replies", () => {
    expectTypeOf<ChatCompletionRequest["max_tokens"]>().toEqualTypeOf<number>();
    expectTypeOf<ChatCompletionRequest["temperature"]>().toEqualTypeOf<number | undefined>();
    type Content = ChatCompletion["choices"][number]["message"]["content"];
    expectTypeOf<Content>().toEqualTypeOf<string | null>();
  });
});
