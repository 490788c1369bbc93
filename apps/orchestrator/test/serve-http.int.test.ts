import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { exportPacketKeys, generatePacketKeys } from "@rein/signing";
import { cliEnv, rein, startRein, prefixesCleanedAfterAll } from "./support/cli.ts";
import { rawRequest } from "./support/raw-http.ts";

const prefixes = prefixesCleanedAfterAll();

function controllerEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = cliEnv({ REIN_PACKET_PRIVATE_KEY: exportPacketKeys(generatePacketKeys()).privateKeyPem, ...extra });
  prefixes.push(env.REIN_PREFIX as string);
  return env;
}

/** Starts `rein serve` with `args` and resolves once it runs, with everything it printed so far. */
async function serve(args: string[], env: NodeJS.ProcessEnv) {
  const started = startRein(["serve", ...args], env);
  let printed = "";
  await new Promise<void>((resolve, reject) => {
    started.child.stderr?.on("data", (chunk: Buffer) => {
      printed += chunk.toString();
      if (printed.includes("running against")) resolve();
    });
    started.done.then((result) => reject(new Error(`rein serve exited ${result.code}:\n${result.stderr}`)));
  });
  return {
    printed,
    stop: async () => {
      started.child.kill("SIGTERM");
      return started.done;
    },
  };
}

// Each test starts a CLI process that loads every package through tsx.
describe("rein serve --http by default", { timeout: 60_000 }, () => {
  it("generates a token, prints it once in the dashboard URL, and refuses every request a web page or a stranger can make", async () => {
    const server = await serve(["--http", "0"], controllerEnv());
    try {
      const url = /(http:\/\/127\.0\.0\.1:(\d+)\/)#token=([A-Za-z0-9_-]{32,})/.exec(server.printed);
      expect(url, server.printed).not.toBeNull();
      const [, page, portText, token] = url as RegExpExecArray;
      expect(server.printed.split(token as string)).toHaveLength(2);
      const port = Number(portText);
      const host = `127.0.0.1:${port}`;
      const goal = JSON.stringify({ text: "list the files", tools: [{ name: "list_files" }] });

      expect((await rawRequest(port, { path: "/runs", headers: { host } })).status).toBe(401);
      const crossSite = await rawRequest(port, {
        method: "POST",
        path: "/runs",
        headers: { host, origin: "http://evil.example", "content-type": "text/plain" },
        body: goal,
      });
      expect(crossSite.status).toBe(403);
      const rebound = await rawRequest(port, {
        method: "POST",
        path: "/runs",
        headers: { host: `evil.example:${port}`, authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: goal,
      });
      expect(rebound.status).toBe(421);
      const foreign = await rawRequest(port, {
        method: "POST",
        path: "/runs",
        headers: { host, origin: "http://evil.example", authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: goal,
      });
      expect(foreign.status).toBe(403);
      const plain = await rawRequest(port, {
        method: "POST",
        path: "/runs",
        headers: { host, authorization: `Bearer ${token}`, "content-type": "text/plain" },
        body: goal,
      });
      expect(plain.status).toBe(415);
      expect(
        JSON.parse((await rawRequest(port, { path: "/runs", headers: { host, authorization: `Bearer ${token}` } })).body).runs,
      ).toEqual([]);

      // The way in: the printed URL's page, then the token as a header.
      expect((await fetch(page as string)).status).toBe(200);
      const submitted = await fetch(`${page}runs`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: goal,
      });
      expect(submitted.status).toBe(202);
      const { runId } = (await submitted.json()) as { runId: string };
      const listed = await fetch(`${page}runs`, { headers: { authorization: `Bearer ${token}` } });
      expect(((await listed.json()) as { runs: { id: string }[] }).runs.map((run) => run.id)).toContain(runId);
    } finally {
      expect((await server.stop()).code).toBe(0);
    }
  });

  it("uses the token from --token-env and never prints it", async () => {
    const secret = "from-the-environment-0123456789";
    const server = await serve(["--http", "0", "--token-env", "REIN_TEST_API_TOKEN"], controllerEnv({ REIN_TEST_API_TOKEN: secret }));
    try {
      expect(server.printed).not.toContain(secret);
      const port = Number(/http:\/\/127\.0\.0\.1:(\d+)/.exec(server.printed)?.[1]);
      expect(
        (await rawRequest(port, { path: "/runs", headers: { host: `127.0.0.1:${port}`, authorization: `Bearer ${secret}` } })).status,
      ).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it("takes named tokens from --tokens-file, makes no shared one, and says who each caller is", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rein-tokens-"));
    const file = join(dir, "tokens.json");
    writeFileSync(file, JSON.stringify({ alice: "alice-secret-0123456789", bob: "bob-secret-0123456789ab" }));
    const server = await serve(["--http", "0", "--tokens-file", file], controllerEnv());
    try {
      expect(server.printed).not.toContain("#token=");
      expect(server.printed).not.toContain("alice-secret");
      const port = Number(/http:\/\/127\.0\.0\.1:(\d+)/.exec(server.printed)?.[1]);
      const identity = async (bearer: string) =>
        rawRequest(port, { path: "/identity", headers: { host: `127.0.0.1:${port}`, authorization: `Bearer ${bearer}` } });
      // A token given in clear, as files written before roles give them, keeps what every token could do then.
      expect(JSON.parse((await identity("bob-secret-0123456789ab")).body)).toEqual({ identity: "bob", role: "admin" });
      expect((await identity("not-anyones-token-0123456789")).status).toBe(401);
    } finally {
      await server.stop();
    }
    writeFileSync(file, JSON.stringify({ carol: "short" }));
    const short = await rein(["serve", "--http", "0", "--tokens-file", file], controllerEnv());
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/--tokens-file .*carol: expected a token of at least 16 random characters/);
  });

  it("takes roles and run scopes from --tokens-file, each token by its sha256 or the variable that holds it, none of them in the file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rein-tokens-"));
    const file = join(dir, "tokens.json");
    const viewer = "vera-secret-0123456789abcdef";
    const operator = "otto-secret-0123456789abcdef";
    const sha256 = createHash("sha256").update(viewer).digest("hex");
    writeFileSync(
      file,
      JSON.stringify({
        vera: { role: "viewer", sha256, runs: { metadata: { team: "payments" } } },
        otto: { role: "operator", env: "REIN_TEST_OTTO_TOKEN" },
      }),
    );
    const server = await serve(["--http", "0", "--tokens-file", file], controllerEnv({ REIN_TEST_OTTO_TOKEN: operator }));
    try {
      const port = Number(/http:\/\/127\.0\.0\.1:(\d+)/.exec(server.printed)?.[1]);
      const call = (bearer: string, path: string, method = "GET") =>
        rawRequest(port, {
          path,
          method,
          headers: { host: `127.0.0.1:${port}`, authorization: `Bearer ${bearer}`, "content-type": "application/json" },
          body: method === "POST" ? "{}" : undefined,
        });
      expect(JSON.parse((await call(viewer, "/identity")).body)).toEqual({
        identity: "vera",
        role: "viewer",
        runs: { metadata: { team: "payments" } },
      });
      expect(JSON.parse((await call(operator, "/identity")).body)).toEqual({ identity: "otto", role: "operator" });
      const refused = await call(viewer, "/approvals/apr_any/approve", "POST");
      expect(refused.status).toBe(403);
      expect(JSON.parse(refused.body).error).toMatch(/role viewer; POST \/approvals\/\{id\}\/approve needs role operator/);
      expect((await call(operator, "/runs/run_any/cancel", "POST")).status).toBe(403);
    } finally {
      await server.stop();
    }
    writeFileSync(file, JSON.stringify({ otto: { role: "operator", env: "REIN_TEST_UNSET_TOKEN" } }));
    const unset = await rein(["serve", "--http", "0", "--tokens-file", file], controllerEnv());
    expect(unset.code).toBe(2);
    expect(unset.stderr).toMatch(/--tokens-file .*otto is read from REIN_TEST_UNSET_TOKEN, which is not set/);
    writeFileSync(file, JSON.stringify({ otto: { role: "root", sha256 } }));
    const badRole = await rein(["serve", "--http", "0", "--tokens-file", file], controllerEnv());
    expect(badRole.code).toBe(2);
    expect(badRole.stderr).toMatch(/--tokens-file .*otto: role: /);
  });

  it("has no way to turn the token off, and refuses a short one", async () => {
    const noToken = await rein(["serve", "--http", "0", "--no-token"], controllerEnv());
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toMatch(/no-token/);
    const short = await rein(["serve", "--http", "0", "--host", "0.0.0.0", "--token-env", "SHORT"], controllerEnv({ SHORT: "abc" }));
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/expected at least 16 random ones/);
    const stray = await rein(["serve", "--host", "0.0.0.0"], controllerEnv());
    expect(stray.code).toBe(2);
    expect(stray.stderr).toMatch(/--host configures the HTTP API; expected it with --http PORT/);
  });
});
