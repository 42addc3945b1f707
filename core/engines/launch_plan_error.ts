/** A launch spec an engine adapter refuses to turn into a process. Nothing was started. */
export class LaunchPlanError extends Error {
  override name = "LaunchPlanError";
  constructor(readonly engine: string, message: string) {
    super(`${engine}: ${message}`);
  }
}

/** A catalog argument the flag gate refuses; `flag` is the offending flag as written. */
export class UnsafeFlagError extends LaunchPlanError {
  override name = "UnsafeFlagError";
  constructor(engine: string, readonly flag: string, why: string) {
    super(engine, `the flag ${flag} is not allowed in a model's arguments: ${why}`);
  }
}
