/**
 * One step-worker process of the scaling test, started as
 * `node --conditions=@rein/source --import tsx step-worker-entry.ts`
 * (see step-worker-process.ts for what it runs and reads).
 */
import { appendEffect, scalingScript, waitForGate } from "./scaling-fixture.ts";
import { runStepWorkerProcess } from "./step-worker-process.ts";

await runStepWorkerProcess((gateDir) => [appendEffect(gateDir), waitForGate(gateDir)], scalingScript);
