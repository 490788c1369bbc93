import { describeProviderConformance } from "./conformance/provider-conformance.ts";
import { replayHarness, scriptedHarness, wireHarness } from "./conformance/harnesses.ts";

describeProviderConformance(wireHarness("anthropic"));
describeProviderConformance(wireHarness("openai"));
describeProviderConformance(wireHarness("openai-compatible"));
describeProviderConformance(scriptedHarness);
describeProviderConformance(replayHarness);
