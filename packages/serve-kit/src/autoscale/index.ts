// Parsing of an elastic fleet's words, shared by `stack values` (KEDA) and `launch` (the local autoscaler).
export { DEFAULT_SCALE_DOWN_AFTER_SECONDS, durationText, parseDuration } from "./duration.js";
export {
  checkScaleSignals,
  DEFAULT_SCALE_SIGNALS,
  parseScaleSignals,
  SCALE_SIGNAL_NAMES,
  type ScaleSignals,
  scaleSignalsText,
} from "./scale-signals.js";
export { checkScalingRange, isElastic, parseScalingRange, type ScalingRange } from "./scaling-range.js";
