import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { main } from "../../src/cli/main.ts";
import { EXAMPLES_DIR } from "../../src/examples/load-example.ts";
import { connectRedis } from "@rein/runtime";
import { deleteByPrefix } from "@rein/runtime/keys";
import { TEST_REDIS_URL } from "@rein/runtime/testing";

const SUITE = join(EXAMPLES_DIR, "eval-suite");
const BROKEN = resolve(import.meta.dirname, "broken-tools.ts");

describe("rein eval on the shipped suite", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "rein-eval-test-"));
    // Cases run under scratch prefixes derived from this one and are deleted after each case.
    vi.stubEnv("REIN_PREFIX", `rein-evaltest-${process.pid}`);
    vi.stubEnv("REDIS_URL", TEST_REDIS_URL);
    vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
    await rm(dir, { recursive: true, force: true });
    // The command's own queues leave their meta keys under the base prefix.
    const redis = connectRedis(TEST_REDIS_URL);
    await deleteByPrefix(redis, `rein-evaltest-${process.pid}`);
    redis.disconnect();
  });

  it("passes against the committed baseline", async () => {
    expect(await main(["eval", SUITE, "--baseline", join(SUITE, "baseline.json")])).toBe(0);
  });

  it("exits non-zero when a deliberately broken write_file is swapped in", async () => {
    const written = join(dir, "broken.json");
    expect(await main(["eval", SUITE, "--tools-module", BROKEN, "--write-baseline", written])).toBe(1);
    const broken = JSON.parse(await readFile(written, "utf8"));
    // The cases that write the fix fail; the one that never reaches a tool still passes.
    expect(broken.cases["bugfix-scripted"].passed).toBe(false);
    expect(broken.cases["bugfix-recorded"].passed).toBe(false);
    expect(broken.cases["bugfix-step-budget"].passed).toBe(true);
    expect(await main(["eval", SUITE, "--tools-module", BROKEN, "--baseline", join(SUITE, "baseline.json")])).toBe(1);
  });
});
