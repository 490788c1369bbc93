import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/index.ts";
import { configFile, failure } from "./config-file.ts";

describe("config tools.repeatSafe: calls a deployment declares safe to run again after a crash (issue 32.7)", () => {
  it("reads tool and command globs, and is empty by default (at most once for every call)", () => {
    expect(loadConfig({ env: {}, file: configFile({}) }).tools.repeatSafe).toEqual([]);
    const rules = [{ tool: "run_command", command: "npm test*" }, { tool: "my_read_script" }];
    expect(loadConfig({ env: {}, file: configFile({ tools: { repeatSafe: rules } }) }).tools.repeatSafe).toEqual(rules);
  });

  it("refuses a rule with an unknown key or without a tool, saying where", () => {
    const unknown = failure(() =>
      loadConfig({ env: {}, file: configFile({ tools: { repeatSafe: [{ tool: "run_command", comand: "npm test" }] } }) }),
    );
    expect(unknown.message).toContain("tools.repeatSafe.0.comand");
    const noTool = failure(() => loadConfig({ env: {}, file: configFile({ tools: { repeatSafe: [{ command: "npm test*" }] } }) }));
    expect(noTool.message).toContain("tools.repeatSafe.0.tool");
  });
});
