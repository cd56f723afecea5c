import type { ScaleSignals, ScalingRange } from "../autoscale/index.js";
import type { NormalizedServe } from "../internal/normalize.js";
import type { VllmDtype } from "../options/engine-options.js";
import type { SecretKeyReference, StackAdapterLoading, StackRouting, StackStorage } from "./stack-options.js";

// The shape of an entry of the stack option table (stack-option-table.ts): what every entry must give.

/** The checked value of each option (undefined where it has no default and was not given). */
export interface StackOptionValues {
  release: string;
  name: string;
  namespace: string | undefined;
  image: { repository: string; tag: string };
  replicas: ScalingRange;
  scaleOn: ScaleSignals | undefined;
  prometheusUrl: string | undefined;
  scaleDownAfterSeconds: number | undefined;
  gpusPerReplica: number;
  cpu: number;
  memory: string;
  maxModelLen: number | undefined;
  dtype: VllmDtype | undefined;
  prefixCaching: boolean | undefined;
  apiKeySecret: SecretKeyReference | undefined;
  hfTokenSecret: SecretKeyReference | undefined;
  storage: StackStorage | undefined;
  adapterLoading: StackAdapterLoading;
  routing: StackRouting;
  sessionHeader: string | undefined;
  runtimeClassName: string | undefined;
  startupTimeoutSeconds: number;
}
export type StackOptionKey = keyof StackOptionValues;

/** What a rule and a default may read: the serve configuration and the options above it, checked. */
export interface StackContext {
  serve: NormalizedServe;
  checked: Partial<StackOptionValues>;
}

/** The default when the option is not given: one value; one derived from the context; or none (unset). */
export type StackDefault<V> =
  | { kind: "value"; value: V; shown: string }
  | { kind: "derived"; from: string; value: (context: StackContext) => V }
  | { kind: "none"; means: string };

/** How the command line gives the option. */
export type StackCli =
  /** One flag with a value; `fromText` turns the text into the option's input (else a number or the text). */
  | {
      kind: "flag";
      flag: `--${string}`;
      valueName: string;
      fromText?: (text: string, field: string) => unknown;
    }
  /** A switch that gives the option `value`. */
  | { kind: "switch"; flag: `--${string}`; value: unknown }
  /** Several flags that `studio-serve stack` puts together into the one option. */
  | { kind: "flags"; flags: readonly `--${string}`[] }
  /** The engine option's flag (serve-kit's ENGINE_OPTIONS), which sets it in the serve configuration. */
  | { kind: "engine"; flag: `--${string}` };

export interface StackOption<K extends StackOptionKey> {
  key: K;
  /** Checks a given value (from plain JavaScript or the command line); returns it typed or throws. */
  check: (value: unknown, field: string, context: StackContext) => StackOptionValues[K];
  default: StackDefault<StackOptionValues[K]>;
  /** Where it goes: chart value paths (`servingEngineSpec.modelSpec[].replicaCount`), `scaledObject.…`, `commands`. */
  goes: readonly string[];
  /** A value the table's test builds with, to see it arrive where `goes` says. */
  example: unknown;
  cli: StackCli;
  /** What it does, then its default: `--help` shows this line. */
  help: string;
}

/** The default in words, as the help line ends: "(default 8)". */
export function stackDefaultText(fallback: StackDefault<unknown>): string {
  if (fallback.kind === "value") return `default ${fallback.shown}`;
  return fallback.kind === "derived" ? `default ${fallback.from}` : `default: ${fallback.means}`;
}
