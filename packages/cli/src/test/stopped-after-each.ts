import type { ManagedProcess } from "@finetune-studio/testing";
import { afterEach } from "vitest";

/**
 * The list a test file puts the processes it starts in: after each test, every one is stopped with its
 * whole group, however the test ended.
 */
export function stoppedAfterEach(): ManagedProcess[] {
  const running: ManagedProcess[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((proc) => proc.stop()));
  });
  return running;
}
