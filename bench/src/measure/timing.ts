// Loops that time async calls. Every loop is bounded by a call count, never by "until stable", so the bench
// always ends. The variants being compared run in rounds, in a rotating order, so that a slow spell of the
// shared machine (another process's tests, a GC) falls on all of them alike instead of on whichever ran then.

export interface Scenario {
  /** Who makes the call: "raw fetch", "openapi-fetch", "@finetune-studio/client", ... */
  readonly caller: string;
  readonly call: () => Promise<unknown>;
  /** The row a target compares the others with: a peer given the same timeout as our client. */
  readonly baseline?: boolean;
}

export interface LoopSettings {
  /** Calls per scenario, not timed: JIT, connection pool and server warm up. */
  readonly warmupCalls: number;
  /** Timed calls per scenario, split evenly over the rounds. */
  readonly calls: number;
  readonly rounds: number;
}

/** Rotates the order of the scenarios by `round`, so none always runs first or last. */
function inRoundOrder<T>(items: readonly T[], round: number): T[] {
  const shift = round % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

async function warmUp(scenarios: readonly Scenario[], calls: number): Promise<void> {
  for (const scenario of scenarios) for (let i = 0; i < calls; i++) await scenario.call();
}

/**
 * Times each call of each scenario on its own, one call at a time: latency in milliseconds per call, one
 * array per round (so that the scenarios can be compared round by round).
 */
export async function sequentialLatencies(
  scenarios: readonly Scenario[],
  settings: LoopSettings,
): Promise<Map<Scenario, number[][]>> {
  await warmUp(scenarios, settings.warmupCalls);
  const samples = new Map<Scenario, number[][]>(scenarios.map((scenario) => [scenario, []]));
  const perRound = Math.ceil(settings.calls / settings.rounds);
  for (let round = 0; round < settings.rounds; round++) {
    for (const scenario of inRoundOrder(scenarios, round)) {
      const into: number[] = [];
      for (let i = 0; i < perRound; i++) {
        const started = performance.now();
        await scenario.call();
        into.push(performance.now() - started);
      }
      samples.get(scenario)?.push(into);
    }
  }
  return samples;
}

/** Runs `calls` calls through `callers` concurrent loops and returns the elapsed milliseconds. */
async function runConcurrently(scenario: Scenario, callers: number, calls: number): Promise<number> {
  let remaining = calls;
  const caller = async () => {
    while (remaining > 0) {
      remaining--;
      await scenario.call();
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: callers }, caller));
  return performance.now() - started;
}

/**
 * Throughput in calls per second with `callers` callers sharing one client, each waiting for its answer: one
 * rate per round, so that a slow spell of the shared machine in one round can be compared within it.
 */
export async function concurrentThroughput(
  scenarios: readonly Scenario[],
  callers: number,
  settings: LoopSettings,
): Promise<Map<Scenario, number[]>> {
  for (const scenario of scenarios) await runConcurrently(scenario, callers, settings.warmupCalls);
  const rates = new Map<Scenario, number[]>(scenarios.map((scenario) => [scenario, []]));
  const perRound = Math.ceil(settings.calls / settings.rounds);
  for (let round = 0; round < settings.rounds; round++) {
    for (const scenario of inRoundOrder(scenarios, round)) {
      const ms = await runConcurrently(scenario, callers, perRound);
      rates.get(scenario)?.push((perRound / ms) * 1000);
    }
  }
  return rates;
}
