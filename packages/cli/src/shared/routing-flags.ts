// How a front door picks an instance: `launch --instances` (HAProxy) and `stack` (production-stack's router)
// take the same two flags, one vocabulary, serve-kit's (routing.ts). Declared once; each command checks the
// values where it uses them (launch in supervise/layout.ts, stack in serve-kit's builder).
import { DEFAULT_SESSION_HEADER, ROUTING_POLICIES } from "@finetune-studio/serve-kit/internal";
import { textFlag } from "./flags.js";

export const ROUTING_FLAG = textFlag("routing", {
  valueName: ROUTING_POLICIES.join("|"),
  field: "routing",
  help: "how the front door picks an instance: least-busy (fewest open requests),\nsession (one instance per session header, least-busy without one) or\nprefix (as session, keyed on the start of the conversation without one)",
});

export const SESSION_HEADER_FLAG = textFlag("session-header", {
  valueName: "NAME",
  field: "sessionHeader",
  help: "with session or prefix routing: the header that names a session",
  shows: DEFAULT_SESSION_HEADER,
});
