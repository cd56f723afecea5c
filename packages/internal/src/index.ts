// Private helpers shared by the published packages; the bundler inlines what each package uses.
// One file per concern; add a line here for each new one.
export { readAtMost } from "./bounded-body.js";
export { codePointLength, describeSecret, describeValue } from "./describe.js";
export {
  isHostname,
  isIPv4,
  isIPv6,
  isIpAddress,
  isLoopbackHost,
  isThisMachine,
  isWildcardHost,
} from "./hosts.js";
export { leftGroupState, processStartTicks, stopLeftGroup } from "./left-group.js";
export { type PortState, probePort } from "./port-probe.js";
export {
  type ChildExit,
  exitCodeOf,
  type ProcessGroup,
  type SpawnGroupOptions,
  spawnGroup,
} from "./process-group.js";
export { serverRootPath } from "./server-url.js";
export { escapeForTerminal, hasTerminalControl, jsonForTerminal } from "./terminal.js";
export { MAX_TIMER_MS } from "./timers.js";
