/**
 * A plain decimal number becomes a number; anything else stays a string for a builder to refuse. For values
 * the library checks by its own rule (a port, an engine option), so its one-line error names the rule.
 */
export function numberOrRaw(value: unknown): unknown {
  // Any run of digits becomes a number (1e21 included), so the library's bound decides, with its message.
  return typeof value === "string" && /^(\d{1,30}(\.\d{1,30})?|\.\d{1,30})$/.test(value)
    ? Number(value)
    : value;
}
