// Private helpers shared by the published packages; the bundler inlines what each package uses.
// One file per concern; add a line here for each new one.
export { codePointLength, describeSecret, describeValue } from "./describe.js";
export { isHostname, isIPv4, isIPv6, isIpAddress, isLoopbackHost, isWildcardHost } from "./hosts.js";
