import { afterAll } from "vitest";
import { removeTempDirs } from "./cli-process.js";

// A setup file runs for every test file, where a helper module's own hooks would not: a vitest worker
// imports a module once for all the files it runs (isolate: false), so a hook at its top level would be
// registered for the first file only.
afterAll(removeTempDirs);
