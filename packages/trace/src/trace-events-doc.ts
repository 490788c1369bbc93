import { z } from "zod";
import type { TraceKindSpec } from "./catalogue/trace-kind.ts";
import { CHECK_PREFIX, TRACE_AREAS } from "./trace-catalogue.ts";

type JsonSchema = {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema | boolean;
};

/**
 * docs/trace-events.md, generated from the catalogue so the reference can
 * never disagree with what is validated. `npm run docs:trace-events` writes
 * it; a test fails when the file is stale.
 */
export function renderTraceEventsDoc(): string {
  const lines = [
    "# Trace events",
    "",
    "<!-- Generated from packages/trace/src/catalogue/ by `npm run docs:trace-events`; edit the catalogue, not this file. -->",
    "",
    "Every event of a run's trace has the envelope `schemaVersion, seq, ts, runId, stepId, parentStepId, kind,",
    "inputHash?, outputHash?, durationMs?, usage?, payload`. The `payload` of each kind is below. Events are",
    "checked against this catalogue when they are read back from Redis or imported from a file: an unknown",
    "kind or a payload of the wrong shape is an error that names the event.",
    "",
    `The evaluator's check commands go through the tool executor too; their call events carry the same payloads under \`${CHECK_PREFIX}<kind>\` (for example \`${CHECK_PREFIX}tool.called\`).`,
    "",
  ];
  for (const area of TRACE_AREAS) {
    lines.push(`## ${area.title}`, "");
    for (const [kind, spec] of Object.entries<TraceKindSpec>(area.kinds)) lines.push(...renderKind(kind, spec));
  }
  return `${lines.join("\n").trimEnd()}\n`;
}

function renderKind(kind: string, spec: TraceKindSpec): string[] {
  const schema = z.toJSONSchema(spec.payload, { io: "input", unrepresentable: "any" }) as JsonSchema;
  const required = new Set(schema.required ?? []);
  const rows = Object.entries(schema.properties ?? {}).map(
    ([name, field]) => `| \`${name}\`${required.has(name) ? "" : "?"} | ${escapeCell(typeOf(field))} |`,
  );
  const extra = typeof schema.additionalProperties === "object" ? ["", "Further fields may be added (a tool's `traceFields`)."] : [];
  return [
    `### \`${kind}\``,
    "",
    `${spec.summary} Written by: ${spec.emittedBy}.`,
    "",
    "| field | type |",
    "| --- | --- |",
    ...rows,
    ...extra,
    "",
  ];
}

function typeOf(schema: JsonSchema): string {
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(" \\| ");
  if (schema.anyOf) return schema.anyOf.map(typeOf).join(" \\| ");
  if (Array.isArray(schema.type)) return schema.type.map((type) => typeOf({ ...schema, type })).join(" \\| ");
  switch (schema.type) {
    case "array":
      return schema.items ? `${wrapped(typeOf(schema.items))}[]` : "unknown[]";
    case "object":
      return objectType(schema);
    case undefined:
      return "any";
    default:
      return schema.type;
  }
}

function objectType(schema: JsonSchema): string {
  if (!schema.properties)
    return typeof schema.additionalProperties === "object" ? `Record<string, ${typeOf(schema.additionalProperties)}>` : "object";
  const required = new Set(schema.required ?? []);
  return `{ ${Object.entries(schema.properties)
    .map(([name, field]) => `${name}${required.has(name) ? "" : "?"}: ${typeOf(field)}`)
    .join("; ")} }`;
}

const wrapped = (type: string): string => (type.includes("|") ? `(${type})` : type);

const escapeCell = (text: string): string => text.replaceAll("\n", " ");
