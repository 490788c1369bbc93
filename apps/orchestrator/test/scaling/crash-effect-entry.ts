/**
 * A step-worker process for the crash-mid-effect test, started like
 * step-worker-entry.ts with the crash fixture's tool and script.
 */
import { crashScript, deployRelease } from "./crash-effect-fixture.ts";
import { runStepWorkerProcess } from "./step-worker-process.ts";

await runStepWorkerProcess((gateDir) => [deployRelease(gateDir)], crashScript);
