import { describe, expect, it } from "vitest";
import { canMove, IllegalTransition, INSTANCE_STATES, type InstanceState, LifeCycle } from "./life-cycle.js";

// Every pair of states, legal or not: the table below is the whole rule, written out once more by hand.
const LEGAL: [InstanceState, InstanceState][] = [
  ["stopped", "starting"],
  ["starting", "serving"],
  ["starting", "stopped"],
  ["serving", "draining"],
  ["serving", "stopped"],
  ["draining", "asleep"],
  ["draining", "stopped"],
  ["asleep", "starting"],
  ["asleep", "stopped"],
];
const isLegal = (from: InstanceState, to: InstanceState) => LEGAL.some(([a, b]) => a === from && b === to);
const ALL_PAIRS = INSTANCE_STATES.flatMap((from) => INSTANCE_STATES.map((to) => [from, to] as const));

/** A life cycle brought to `state` by legal moves only. */
function at(state: InstanceState, heard: InstanceState[] = []): LifeCycle {
  const path: Record<InstanceState, InstanceState[]> = {
    stopped: [],
    starting: ["starting"],
    serving: ["starting", "serving"],
    draining: ["starting", "serving", "draining"],
    asleep: ["starting", "serving", "draining", "asleep"],
  };
  const life = new LifeCycle("instance 0 (port 8001)", (next) => heard.push(next));
  for (const next of path[state]) life.to(next);
  return life;
}

describe("an instance's life cycle", () => {
  it("starts stopped", () => {
    expect(new LifeCycle("vLLM").state).toBe("stopped");
  });

  it.each(ALL_PAIRS.filter(([from, to]) => isLegal(from, to)))("allows %s -> %s", (from, to) => {
    const heard: InstanceState[] = [];
    const life = at(from, heard);
    heard.length = 0;
    expect(canMove(from, to)).toBe(true);
    life.to(to);
    expect(life.state).toBe(to);
    expect(heard).toEqual([to]);
  });

  it.each(ALL_PAIRS.filter(([from, to]) => !isLegal(from, to)))(
    "refuses %s -> %s, stays put and tells no one",
    (from, to) => {
      const heard: InstanceState[] = [];
      const life = at(from, heard);
      heard.length = 0;
      expect(canMove(from, to)).toBe(false);
      expect(() => life.to(to)).toThrow(IllegalTransition);
      expect(life.state).toBe(from);
      expect(heard).toEqual([]);
    },
  );

  it("names the instance, both states and where it may go instead", () => {
    const life = at("starting");
    expect(() => life.to("draining")).toThrow(
      "instance 0 (port 8001): cannot go from starting to draining (from starting it may go to serving or stopped)",
    );
  });

  it("leaves the balancer only by draining, and wakes by starting again", () => {
    expect(canMove("serving", "asleep")).toBe(false);
    expect(canMove("serving", "starting")).toBe(false);
    expect(canMove("asleep", "serving")).toBe(false);
    expect(canMove("draining", "serving")).toBe(false);
  });

  it("a reload's round, a scale-down and a sleep and wake are paths of legal moves", () => {
    const reload: InstanceState[] = ["starting", "serving", "draining", "stopped", "starting", "serving"];
    const sleepAndWake: InstanceState[] = [
      "starting",
      "serving",
      "draining",
      "asleep",
      "starting",
      "serving",
    ];
    for (const path of [reload, sleepAndWake]) {
      const life = new LifeCycle("vLLM");
      for (const next of path) life.to(next);
      expect(life.state).toBe("serving");
    }
  });
});
