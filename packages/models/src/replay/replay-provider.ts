import { readJsonFile, type Role, Usage, ReinError } from "@rein/contracts";
import type { TraceEvent } from "@rein/contracts/run";
import type { CompleteOptions, ModelProvider, ModelRequest, ModelResponse } from "../model-provider.ts";
import { RecordedResponse, ReplayFile, RespondedPayload } from "./recorded-response.ts";

/**
 * Recorded responses: one list served in arrival order, one list per role,
 * or (built by `ReplayProvider.fromTrace`) one list per role and step.
 */
export type ReplayRecordings = readonly ModelResponse[] | Partial<Record<Role, readonly ModelResponse[]>> | RecordedSteps;

/** Responses per (role, step), in recorded order: what a trace holds. */
export class RecordedSteps {
  constructor(readonly sequences: ReadonlyMap<string, readonly ModelResponse[]>) {}

  static keyOf(role: string, stepId: string | null | undefined): string {
    return `${role}|${stepId ?? "-"}`;
  }
}

export interface ReplayOptions {
  name?: string;
  model?: string;
  /** Rewrites a response's JSON before it is served (runtime ids the recording cites, see the orchestrator's observationIdTranslator). */
  translate?: (json: string) => Promise<string>;
}

/**
 * Plays back recorded model responses, in order, so a run can be reproduced
 * without a model. Recordings from a trace are kept per (role, step), so
 * steps that ran in parallel, or whose calls interleave differently this
 * time, still get their own answers.
 */
export class ReplayProvider implements ModelProvider {
  readonly kind = "replay";
  readonly name: string;
  readonly model: string;
  private readonly sequences: ReadonlyMap<string, readonly ModelResponse[]>;
  private readonly keying: "arrival" | "role" | "step";
  private readonly positions = new Map<string, number>();
  private readonly translate: ((json: string) => Promise<string>) | undefined;

  constructor(recordings: ReplayRecordings, options: ReplayOptions = {}) {
    this.name = options.name ?? "replay";
    this.model = options.model ?? "replay-1";
    this.translate = options.translate;
    if (recordings instanceof RecordedSteps) {
      this.sequences = recordings.sequences;
      this.keying = "step";
    } else if (isList(recordings)) {
      this.sequences = new Map([["all", recordings]]);
      this.keying = "arrival";
    } else {
      this.sequences = new Map(Object.entries(recordings));
      this.keying = "role";
    }
  }

  static fromFile(path: string, options: ReplayOptions = {}): ReplayProvider {
    const recordings = ReplayFile.safeParse(readJsonFile(path, "replay recordings"));
    if (!recordings.success) {
      throw new ReinError(
        "config_invalid",
        `replay recordings ${path}: expected a list of model responses or an object of them keyed by role (${recordings.error.issues[0]?.message ?? "invalid"})`,
      );
    }
    return new ReplayProvider(recordings.data, options);
  }

  /** The responses of a recorded trace's `model.responded` events, per (role, step). */
  static fromTrace(events: readonly TraceEvent[], options: ReplayOptions = {}): ReplayProvider {
    const sequences = new Map<string, ModelResponse[]>();
    for (const event of events) {
      if (event.kind !== "model.responded") continue;
      const payload = RespondedPayload.safeParse(event.payload);
      if (!payload.success) {
        throw new ReinError(
          "contract_invalid",
          `the recording's model.responded event ${event.seq} is not a model response: ${payload.error.issues[0]?.message ?? "invalid"}`,
        );
      }
      const { role, ...response } = payload.data;
      const key = RecordedSteps.keyOf(role, event.stepId);
      sequences.set(key, [...(sequences.get(key) ?? []), { ...response, usage: Usage.parse(event.usage ?? {}), retries: 0 }]);
    }
    return new ReplayProvider(new RecordedSteps(sequences), { model: "recorded", ...options });
  }

  /** How many recorded responses have not been asked for: a replay that ends early leaves some. */
  unused(): number {
    let left = 0;
    for (const [key, sequence] of this.sequences) left += sequence.length - (this.positions.get(key) ?? 0);
    return left;
  }

  async complete(request: ModelRequest, options: CompleteOptions = {}): Promise<ModelResponse> {
    options.signal?.throwIfAborted();
    const key = this.keyOf(request);
    const sequence = this.sequences.get(key) ?? [];
    const position = this.positions.get(key) ?? 0;
    const recorded = sequence[position];
    if (!recorded) throw this.exhausted(sequence.length, position, request);
    this.positions.set(key, position + 1);
    const response = this.translate
      ? RecordedResponse.parse(JSON.parse(await this.translate(JSON.stringify(recorded))))
      : structuredClone(recorded);
    for (const block of response.content) {
      if (block.type === "text") options.onEvent?.({ type: "text_delta", text: block.text });
    }
    return response;
  }

  private keyOf(request: ModelRequest): string {
    if (this.keying === "arrival") return "all";
    if (this.keying === "role") return request.role;
    return RecordedSteps.keyOf(request.role, request.metadata?.stepId);
  }

  private exhausted(recordedCount: number, position: number, request: ModelRequest): ReinError {
    const whose = {
      arrival: "",
      role: ` for role ${request.role}`,
      step: ` for role ${request.role} in step ${request.metadata?.stepId ?? "(none)"}`,
    }[this.keying];
    const diverged = this.keying === "step" ? "; the replay diverged from the recording" : "";
    return new ReinError(
      "script_exhausted",
      `the replay has ${recordedCount} recorded response(s)${whose} but response ${position + 1} was requested${diverged}`,
      { details: { role: request.role } },
    );
  }
}

const isList = (recordings: ReplayRecordings): recordings is readonly ModelResponse[] => Array.isArray(recordings);
