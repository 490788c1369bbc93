import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ensureKeyPairFiles } from "@rein/signing";
import { cliEnv, prefixesCleanedAfterAll, rein, startRein } from "./support/cli.ts";

const prefixes = prefixesCleanedAfterAll();

const tracked = (env: NodeJS.ProcessEnv) => {
  prefixes.push(env.REIN_PREFIX as string);
  return env;
};

// Several CLI starts on a loaded machine; sized generously, not a timing assertion.
describe("packet keys shared through the key directory", { timeout: 240_000 }, () => {
  it("rein serve makes the pair once and rein run beside it on the same prefix uses it and ends done", async () => {
    const env = tracked(cliEnv());
    const keysDir = env.REIN_KEYS_DIR as string;
    const serve = startRein(["serve"], env);
    await new Promise<void>((resolve) => {
      serve.child.stderr?.on("data", (chunk: Buffer) => {
        if (chunk.toString().includes("running against")) resolve();
      });
    });
    try {
      const privateFile = join(keysDir, "packet-private.pem");
      expect(statSync(privateFile).mode & 0o777).toBe(0o600);
      const pair = readFileSync(privateFile, "utf8");
      for (let attempt = 0; attempt < 2; attempt += 1) {
        const run = await rein(["run", "--example", "bugfix"], env);
        expect(run.stdout + run.stderr).not.toMatch(/signature does not verify/);
        expect(run.code, run.stdout).toBe(0);
        expect(run.stderr).not.toMatch(/wrote a packet-signing key pair/);
      }
      expect(readFileSync(privateFile, "utf8")).toBe(pair);
    } finally {
      serve.child.kill("SIGTERM");
      await serve.done;
    }
  });

  it("rein keys generate writes the approval pair a controller's start left missing, keeping its packet pair", async () => {
    const env = tracked(cliEnv());
    const dir = env.REIN_KEYS_DIR as string;
    // What `rein serve` without --http leaves: the packet pair only.
    ensureKeyPairFiles(dir, "packet");
    const packet = readFileSync(join(dir, "packet-private.pem"), "utf8");
    const generated = await rein(["keys", "generate"], env);
    expect(generated.code, generated.stderr).toBe(0);
    expect(generated.stdout).toMatch(/kept the existing .*packet-private\.pem/);
    expect(readFileSync(join(dir, "packet-private.pem"), "utf8")).toBe(packet);
    expect(existsSync(join(dir, "approval-private.pem")) && existsSync(join(dir, "approval-public.pem"))).toBe(true);
  });

  it("rein keys generate refuses to replace existing keys without --force", async () => {
    const env = tracked(cliEnv());
    const dir = env.REIN_KEYS_DIR as string;
    expect((await rein(["keys", "generate"], env)).code).toBe(0);
    const first = readFileSync(join(dir, "packet-private.pem"), "utf8");
    const again = await rein(["keys", "generate"], env);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/packet-private\.pem, .*packet-public\.pem, .* already exist; nothing was written\. Expected --force/);
    expect(readFileSync(join(dir, "packet-private.pem"), "utf8")).toBe(first);
    expect((await rein(["keys", "generate", "--force"], env)).code).toBe(0);
    expect(readFileSync(join(dir, "packet-private.pem"), "utf8")).not.toBe(first);
    expect(statSync(join(dir, "packet-private.pem")).mode & 0o777).toBe(0o600);
  });
});
