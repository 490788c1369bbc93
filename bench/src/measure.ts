import { z } from "zod";

/** One line of bench/results/latest.json. */
export interface Measure {
  name: string;
  value: number;
  unit: string;
  /** The raw figure measured in the same run that `value` is compared with; null when there is none. */
  floor: number | null;
  /** value / floor. */
  ratio: number | null;
  /** The goal, as "ratio <= 2.5", "value <= 300", ... ; null for a figure with no goal. */
  target: string | null;
  met: boolean | null;
}

export type Target = { of: "ratio" | "value"; op: "<=" | ">="; limit: number };

export function measure(name: string, value: number, unit: string, floor: number | null, target?: Target): Measure {
  const ratio = floor === null || floor === 0 ? null : value / floor;
  let met: boolean | null = null;
  if (target) {
    const subject = target.of === "ratio" ? ratio : value;
    met = subject === null ? null : target.op === "<=" ? subject <= target.limit : subject >= target.limit;
  }
  return { name, value, unit, floor, ratio, target: target ? `${target.of} ${target.op} ${target.limit}` : null, met };
}

/** Nearest-rank percentile of samples (any order). */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) throw new Error("percentile of no samples");
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] as number;
}

/** A row as read back from a results file. */
export const MeasureRecord = z.object({
  name: z.string().min(1),
  value: z.number(),
  unit: z.string(),
  floor: z.number().nullable(),
  ratio: z.number().nullable(),
  target: z
    .string()
    .regex(/^(ratio|value) (<=|>=) [0-9.e+-]+$/, "a target reads like 'ratio <= 2.5'")
    .nullable(),
  met: z.boolean().nullable(),
}) satisfies z.ZodType<Measure>;

/** The target of a row as written by `measure`, read back; undefined for a row without one. */
export function targetOf(text: string | null): Target | undefined {
  if (text === null) return undefined;
  const [of, op, limit] = text.split(" ");
  return { of: of as Target["of"], op: op as Target["op"], limit: Number(limit) };
}
