import { hashOf, type ToolCallRecord } from "../index.ts";

/** The record of call `index` of tool `name` with `args`, as a step result lists it; a successful one has a result hash. */
export function toolCallRecord(index: number, name: string, args: unknown, status: ToolCallRecord["status"] = "ok"): ToolCallRecord {
  return {
    index,
    name,
    argsHash: hashOf(args),
    fingerprint: hashOf({ tool: name, args }),
    status,
    resultHash: status === "ok" ? hashOf(`${name}${index}`) : undefined,
    observationId: `obs_${index}`,
    addressed: true,
  };
}
