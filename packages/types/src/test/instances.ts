// Instances drawn from the interface specification: what each schema must accept and what it must refuse.
import { loadDocument } from "./contract-schema.js";

const studio = loadDocument("studio");
const example = (name: string) => structuredClone(studio.components.examples[name].value);

export const trace = example("TraceScored");
export const tree = example("ProjectTreeFull");
export const completed = example("RecommendationsCompleted");

const astral = "😀"; // one code point, two UTF-16 units
const withField = (base: object, patch: object) => ({ ...structuredClone(base), ...patch });
const without = (base: Record<string, unknown>, field: string) => {
  const copy = structuredClone(base);
  delete copy[field];
  return copy;
};

export const traceRequiredFields = [
  "id",
  "createdAt",
  "modelId",
  "projectId",
  "input",
  "output",
  "score",
  "feedback",
  "addedToDataset",
  "processingStatus",
];

type Row = readonly [name: string, instance: unknown];

export const valid: Record<string, Row[]> = {
  Trace: [
    ["scored example", trace],
    ["score 0", withField(trace, { score: 0 })],
    ["score 1", withField(trace, { score: 1 })],
    ["score null", withField(trace, { score: null })],
    ["feedback null", withField(trace, { feedback: null })],
    ["projectId null", withField(trace, { projectId: null })],
    ["feedback of 2048 characters", withField(trace, { feedback: "a".repeat(2048) })],
    ["feedback of 2048 astral characters", withField(trace, { feedback: astral.repeat(2048) })],
    ["processingStatus processing", withField(trace, { processingStatus: "processing" })],
    ["processingStatus failed", withField(trace, { processingStatus: "failed" })],
    ["extra field", withField(trace, { labels: ["x"] })],
  ],
  TraceUpdate: [
    ["empty body", {}],
    ["score 0", { score: 0 }],
    ["score 1", { score: 1 }],
    ["feedback null", { feedback: null }],
    ["feedback of 2048 astral characters", { feedback: astral.repeat(2048) }],
    ["projectId null", { projectId: null }],
    ["projectId uuid", { projectId: "6f1c2a8e-4b7d-4e5a-9c3f-2d8b7a1e0f45" }],
  ],
  Recommendations: [
    ["completed example", completed],
    ["processing without lists", { snapshot_id: completed.snapshot_id, status: "processing" }],
    ["lists null", { ...completed, recommended_models: null, recommended_experiments: null }],
    ["processing with partial lists", { ...completed, status: "processing", recommended_experiments: [] }],
    [
      "null hyperparameters and reason",
      {
        ...completed,
        recommended_models: [
          {
            base_model_id: "m",
            full_hyperparameters: null,
            lora_hyperparameters: null,
            reason_for_recommendation: null,
          },
        ],
      },
    ],
  ],
  ProjectTree: [
    ["five-level example", tree],
    ["unknown node status", withField(tree, { project: { ...tree.project, status: "archived" } })],
    ["project without children", { project: { id: tree.project.id, type: "project", name: "p" } }],
    [
      "experiment metadata without any field",
      (() => {
        const t = structuredClone(tree);
        t.project.children[0].children[0].children[0].children[0].metadata = {};
        return t;
      })(),
    ],
  ],
};

const treeWith = (edit: (t: any) => void) => {
  const t = structuredClone(tree);
  edit(t);
  return t;
};

export const invalid: Record<string, Row[]> = {
  Trace: [
    ["score -0.01", withField(trace, { score: -0.01 })],
    ["score 1.01", withField(trace, { score: 1.01 })],
    ["score as a string", withField(trace, { score: "0.5" })],
    ["feedback of 2049 characters", withField(trace, { feedback: "a".repeat(2049) })],
    ["feedback of 2049 astral characters", withField(trace, { feedback: astral.repeat(2049) })],
    ["unknown processingStatus", withField(trace, { processingStatus: "done" })],
    ["id not a uuid", withField(trace, { id: "trace-1" })],
    ["projectId not a uuid", withField(trace, { projectId: "../projects" })],
    ["createdAt not a date-time", withField(trace, { createdAt: "yesterday" })],
    ["addedToDataset as a string", withField(trace, { addedToDataset: "true" })],
    ["modelId null", withField(trace, { modelId: null })],
    ...traceRequiredFields.map((field) => [`missing ${field}`, without(trace, field)] as const),
  ],
  TraceUpdate: [
    ["score -0.01", { score: -0.01 }],
    ["score 1.01", { score: 1.01 }],
    ["score null", { score: null }],
    ["feedback of 2049 characters", { feedback: "a".repeat(2049) }],
    ["feedback of 2049 astral characters", { feedback: astral.repeat(2049) }],
    ["projectId not a uuid", { projectId: "abc" }],
    ["misspelt field", { scroe: 0.5 }],
  ],
  Recommendations: [
    ["unknown status", { ...completed, status: "done" }],
    ["missing status", without(completed, "status")],
    ["missing snapshot_id", without(completed, "snapshot_id")],
    ["snapshot_id not a uuid", { ...completed, snapshot_id: "snap-1" }],
    ["recommended_models as an object", { ...completed, recommended_models: {} }],
    ["lora as a string", { ...completed, recommended_experiments: [{ lora: "yes" }] }],
    [
      "n_epochs as a string",
      { ...completed, recommended_models: [{ full_hyperparameters: { n_epochs: "3" } }] },
    ],
  ],
  ProjectTree: [
    ["missing project", {}],
    ["project of type dataset", treeWith((t) => (t.project.type = "dataset"))],
    ["project without name", treeWith((t) => delete t.project.name)],
    ["project id not a uuid", treeWith((t) => (t.project.id = "p1"))],
    ["dataset without label", treeWith((t) => delete t.project.children[0].label)],
    [
      "snapshot directly under the project",
      treeWith((t) => (t.project.children = t.project.children[0].children)),
    ],
    [
      "datapoints_count not an integer",
      treeWith((t) => (t.project.children[0].metadata.datapoints_count = 1.5)),
    ],
    [
      "reasoning as a string",
      treeWith((t) => (t.project.children[0].children[0].children[0].metadata.reasoning = "no")),
    ],
    [
      "experiment of type job",
      treeWith((t) => (t.project.children[0].children[0].children[0].children[0].type = "finetuning-job")),
    ],
    ["status not a string", treeWith((t) => (t.project.children[0].status = 3))],
    ...(
      [
        ["id", 7],
        ["experiment_number", "1"],
        ["base_model_id", null],
        ["model_id", 42],
      ] as const
    ).map(([field, value]): [string, unknown] => [
      `experiment metadata ${field} of the wrong type`,
      treeWith((t) => (t.project.children[0].children[0].children[0].children[0].metadata[field] = value)),
    ]),
  ],
};
