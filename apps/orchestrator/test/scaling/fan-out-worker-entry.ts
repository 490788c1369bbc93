/**
 * One step-worker process of the fan-out kill test, started as
 * `node --conditions=@rein/source --import tsx fan-out-worker-entry.ts`
 * (see step-worker-process.ts for what it runs and reads).
 */
import { fanOutScript, holdAtGate } from "./fan-out-fixture.ts";
import { runStepWorkerProcess } from "./step-worker-process.ts";

await runStepWorkerProcess((gateDir) => [holdAtGate(gateDir)], fanOutScript);
