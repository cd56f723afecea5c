import type { Broken } from "./exchange.js";
import { isPlainObject } from "./validate.js";

// A 2xx answer is untrusted too: a proxy may answer 200 with something else, a server with another
// resource. Cheap checks (no schema validator) of what a caller relies on: the promised shape, and that
// the answer is the resource asked for. Each says what is broken, or nothing.

/** `{ project }` whose every `children`, at any depth, is an array of objects. Walked without recursion. */
export function brokenProjectTree(data: unknown): Broken | undefined {
  if (!isPlainObject(data)) return ["a project tree is an object", data];
  if (!isPlainObject(data.project)) return ["a project tree has a project object", data.project];
  const pending = [data.project];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    const { children } = node;
    if (children === undefined) continue;
    if (!Array.isArray(children)) return ["a node's children are an array", children];
    for (const child of children) {
      if (!isPlainObject(child)) return ["a node's children are objects", child];
      pending.push(child);
    }
  }
}

/** Recommendations for `snapshotId`, with a string status and lists that are arrays when present. */
export function brokenRecommendations(data: unknown, snapshotId: string): Broken | undefined {
  if (!isPlainObject(data)) return ["recommendations are an object", data];
  if (typeof data.status !== "string") return ["status is a string", data.status];
  if (!sameId(data.snapshot_id, snapshotId)) {
    return [`snapshot_id is the snapshot asked for, ${snapshotId}`, data.snapshot_id];
  }
  for (const list of ["recommended_models", "recommended_experiments"]) {
    const value = data[list];
    if (value != null && !Array.isArray(value)) return [`${list} is an array or null`, value];
  }
}

/** The trace asked for: an object whose id is `traceId`. */
export function brokenTrace(data: unknown, traceId: string): Broken | undefined {
  if (!isPlainObject(data)) return ["a trace is an object", data];
  if (!sameId(data.id, traceId)) return [`id is the trace asked for, ${traceId}`, data.id];
}

/** A completion (not a chunk: the server streamed although asked not to) with a choices array. */
export function brokenCompletion(data: unknown): Broken | undefined {
  if (!isPlainObject(data) || !Array.isArray(data.choices) || data.object === "chat.completion.chunk")
    return ["a completion has a choices array"];
}

/** A model list: a data array of objects. */
export function brokenModelList(data: unknown): Broken | undefined {
  if (!isPlainObject(data) || !Array.isArray(data.data) || !data.data.every(isPlainObject))
    return ["a model list has a data array of objects"];
}

/** uuids name the same thing in either case. */
function sameId(got: unknown, asked: string): boolean {
  return typeof got === "string" && got.toLowerCase() === asked.toLowerCase();
}
