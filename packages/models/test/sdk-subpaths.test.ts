import { describe, expect, it } from "vitest";
import { packagesLoadedBy } from "@rein/contracts/testing";

const sdksLoadedBy = (specifier: string) =>
  packagesLoadedBy(specifier, import.meta.dirname).filter((name) => name === "@anthropic-ai/sdk" || name === "openai");

describe("each SDK loads with its adapter's subpath, and only there", () => {
  it("@rein/models loads no model SDK", () => {
    expect(sdksLoadedBy("@rein/models")).toEqual([]);
  });

  it("@rein/models/anthropic loads Anthropic's SDK and not OpenAI's", () => {
    expect(sdksLoadedBy("@rein/models/anthropic")).toEqual(["@anthropic-ai/sdk"]);
  });

  it("@rein/models/openai loads OpenAI's SDK and not Anthropic's", () => {
    expect(sdksLoadedBy("@rein/models/openai")).toEqual(["openai"]);
  });
});
