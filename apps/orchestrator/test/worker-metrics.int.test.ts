import { describe, expect, it } from "vitest";
import { cliEnv, prefixesCleanedAfterAll, rein, startRein } from "./support/cli.ts";

const prefixes = prefixesCleanedAfterAll();

// A CLI process that loads every package through tsx.
describe("rein worker --metrics-port", { timeout: 60_000 }, () => {
  it("serves the worker process's own metrics, labelled with its roles, until it stops", async () => {
    const env = cliEnv();
    prefixes.push(env.REIN_PREFIX as string);
    const started = startRein(["worker", "--role", "plan", "--metrics-port", "0"], env);
    let printed = "";
    const url = await new Promise<string>((resolve, reject) => {
      started.child.stderr?.on("data", (chunk: Buffer) => {
        printed += chunk.toString();
        const found = /this process's metrics on (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(printed);
        if (found && printed.includes("running against")) resolve(found[1] as string);
      });
      started.done.then((result) => reject(new Error(`rein worker exited ${result.code}:\n${result.stderr}`)));
    });
    try {
      const response = await fetch(url);
      expect(response.status).toBe(200);
      expect(await response.text()).toMatch(/^rein_process_process_resident_memory_bytes\{roles="plan"\} \d/m);
    } finally {
      started.child.kill("SIGTERM");
      expect((await started.done).code).toBe(0);
    }
    await expect(fetch(url)).rejects.toThrow();
  });

  it("refuses --metrics-host without --metrics-port", async () => {
    const result = await rein(["worker", "--role", "plan", "--metrics-host", "0.0.0.0"], cliEnv());
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--metrics-host configures the metrics endpoint; expected it with --metrics-port PORT/);
  });
});
