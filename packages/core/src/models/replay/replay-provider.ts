import { readFileSync } from "node:fs";
import type { Role } from "../../contracts/index.ts";
import { ReinError } from "../../errors.ts";
import type { CompleteOptions, ModelProvider, ModelRequest, ModelResponse } from "../model-provider.ts";

/** Recorded responses: one sequence for every request, or one per role. */
export type ReplayRecordings = readonly ModelResponse[] | Partial<Record<Role, readonly ModelResponse[]>>;

/**
 * Plays back the model responses recorded in a trace, in order, so a run can
 * be reproduced without a model. With recordings keyed by role each role
 * has its own sequence; a plain list serves requests in arrival order.
 */
export class ReplayProvider implements ModelProvider {
  readonly kind = "replay";
  readonly name: string;
  readonly model: string;
  private readonly sequences: Map<Role | "all", readonly ModelResponse[]>;
  private readonly positions = new Map<Role | "all", number>();

  constructor(recordings: ReplayRecordings, options: { name?: string; model?: string } = {}) {
    this.name = options.name ?? "replay";
    this.model = options.model ?? "replay-1";
    this.sequences = Array.isArray(recordings)
      ? new Map([["all", recordings as readonly ModelResponse[]]])
      : new Map(Object.entries(recordings) as [Role, readonly ModelResponse[]][]);
  }

  static fromFile(path: string, options: { name?: string; model?: string } = {}): ReplayProvider {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(path, "utf8"));
    } catch (error) {
      throw new ReinError("config_invalid", `cannot read replay recordings ${path}: expected a JSON file`, { cause: error });
    }
    if (typeof raw !== "object" || raw === null) {
      throw new ReinError("config_invalid", `replay recordings ${path}: expected a list of responses or an object keyed by role`);
    }
    return new ReplayProvider(raw as ReplayRecordings, options);
  }

  async complete(request: ModelRequest, options: CompleteOptions = {}): Promise<ModelResponse> {
    options.signal?.throwIfAborted();
    const key: Role | "all" = this.sequences.has("all") ? "all" : request.role;
    const sequence = this.sequences.get(key) ?? [];
    const position = this.positions.get(key) ?? 0;
    const recorded = sequence[position];
    if (!recorded) {
      const whose = key === "all" ? "" : ` for role ${key}`;
      throw new ReinError(
        "script_exhausted",
        `the replay has ${sequence.length} recorded response(s)${whose} but response ${position + 1} was requested`,
        { details: { role: request.role } },
      );
    }
    this.positions.set(key, position + 1);
    const response = structuredClone(recorded);
    for (const block of response.content) {
      if (block.type === "text") options.onEvent?.({ type: "text_delta", text: block.text });
    }
    return response;
  }
}
