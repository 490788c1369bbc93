import { type CompleteOptions, type ModelProvider, type ModelRequest, type ModelResponse, ReinError, type TraceEvent, Usage } from "@rein/core";

const keyOf = (role: string, stepId: string | null | undefined) => `${role}|${stepId ?? "-"}`;

/**
 * Plays back the model responses of a recorded trace. Responses are kept per
 * (role, step) in recorded order, so steps that ran in parallel, or whose
 * calls interleave differently this time, still get their own answers.
 * (Core's ReplayProvider keys by role only, which is enough for one
 * sequential run but not for a trace.)
 */
export class RecordedModel implements ModelProvider {
  readonly kind = "replay";
  readonly name = "replay";
  readonly model = "recorded";
  private readonly positions = new Map<string, number>();

  /**
   * @param translate rewrites a response's JSON before it is served (runtime
   * ids the recording cites, see observationIdTranslator).
   */
  constructor(
    private readonly sequences: ReadonlyMap<string, readonly ModelResponse[]>,
    private readonly translate: (json: string) => Promise<string> = async (json) => json,
  ) {}

  static fromEvents(events: readonly TraceEvent[], translate?: (json: string) => Promise<string>): RecordedModel {
    const sequences = new Map<string, ModelResponse[]>();
    for (const event of events) {
      if (event.kind !== "model.responded") continue;
      const p = event.payload;
      const key = keyOf(String(p.role), event.stepId);
      const response: ModelResponse = {
        content: (p.content ?? []) as ModelResponse["content"],
        stopReason: (p.stopReason ?? "end_turn") as ModelResponse["stopReason"],
        usage: Usage.parse(event.usage ?? {}),
        provider: String(p.provider ?? "replay"),
        model: String(p.model ?? "recorded"),
        retries: 0,
      };
      sequences.set(key, [...(sequences.get(key) ?? []), response]);
    }
    return new RecordedModel(sequences, translate);
  }

  /** How many recorded responses have not been asked for: a replay that ends early leaves some. */
  unused(): number {
    let left = 0;
    for (const [key, sequence] of this.sequences) left += sequence.length - (this.positions.get(key) ?? 0);
    return left;
  }

  async complete(request: ModelRequest, options: CompleteOptions = {}): Promise<ModelResponse> {
    options.signal?.throwIfAborted();
    const key = keyOf(request.role, request.metadata?.stepId);
    const sequence = this.sequences.get(key) ?? [];
    const position = this.positions.get(key) ?? 0;
    const recorded = sequence[position];
    if (!recorded) {
      throw new ReinError(
        "script_exhausted",
        `the recording has ${sequence.length} ${request.role} response(s) for step ${request.metadata?.stepId ?? "(none)"} but response ${position + 1} was requested; the replay diverged from the recording`,
      );
    }
    this.positions.set(key, position + 1);
    return JSON.parse(await this.translate(JSON.stringify(recorded))) as ModelResponse;
  }
}
