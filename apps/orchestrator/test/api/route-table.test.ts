import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { route, routeMatcher } from "../../src/api/route-table.ts";

const request = {} as IncomingMessage;
const response = {} as ServerResponse;
const url = new URL("http://localhost/");

describe("the HTTP API's route table", () => {
  it("hands a handler the path's parameters by name, parsed by the route's schema", async () => {
    const seen: unknown[] = [];
    const match = routeMatcher([
      route({
        method: "GET",
        path: "/runs/{id}",
        params: z.object({ id: z.string() }),
        handle: async (_request, _response, params) => void seen.push(params),
      }),
      route({
        method: "GET",
        path: "/runs/{id}/calls/{callId}",
        params: z.object({ id: z.string(), callId: z.string() }),
        handle: async (_request, _response, params) => void seen.push(params),
      }),
    ]);
    for (const path of ["/runs/run_a", "/runs/run_a/calls/c1:step.2"]) {
      const found = match("GET", path);
      await found?.route.handle(request, response, found.params, url, undefined);
    }
    expect(seen).toEqual([{ id: "run_a" }, { id: "run_a", callId: "c1:step.2" }]);
    expect(match("POST", "/runs/run_a")).toBeUndefined();
    expect(match("GET", "/runs/run_a/calls/c 1")).toBeUndefined();
  });

  it("answers 400 naming the parameter its schema refuses, without calling the handler", async () => {
    const calls: string[] = [];
    const match = routeMatcher([
      route({
        method: "GET",
        path: "/runs/{id}",
        params: z.object({ id: z.string().startsWith("run_", "expected a run id (run_…)") }),
        handle: async (_request, _response, { id }) => void calls.push(id),
      }),
    ]);
    const found = match("GET", "/runs/apr_1");
    await expect(found?.route.handle(request, response, found.params, url, undefined)).rejects.toMatchObject({
      status: 400,
      message: "id: expected a run id (run_…)",
    });
    expect(calls).toEqual([]);
  });
});
