/**
 * Bad serving input, refused before any command is built or process started.
 *
 * The message reads `<field>: <rule> (given <what was given>)`. What was given is described by its shape
 * when it is a secret (an API key), so the error can be logged safely.
 */
export class ServeConfigError extends Error {
  override readonly name = "ServeConfigError";
  /** The option at fault, as a path into the input: `port`, `adapters[1].name`, `extraArgs[0]`. */
  readonly field: string;
  /** The rule the value broke, in words. */
  readonly rule: string;
  /** What was given: the value quoted and shortened, or only its shape for secrets. */
  readonly given: string;

  constructor(field: string, rule: string, given: string) {
    super(`${field}: ${rule} (given ${given})`);
    this.field = field;
    this.rule = rule;
    this.given = given;
  }
}
