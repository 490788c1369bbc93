import { describeProviderConformance } from "./conformance/provider-conformance.ts";
import { anthropicEmulatorHarness } from "./conformance/anthropic-emulator-harness.ts";
import { replayHarness, scriptedHarness, wireHarness } from "./conformance/harnesses.ts";
import { openAIEmulatorHarness } from "./conformance/openai-emulator-harness.ts";

describeProviderConformance(anthropicEmulatorHarness);
describeProviderConformance(wireHarness("openai"));
describeProviderConformance(wireHarness("openai-compatible"));
describeProviderConformance(openAIEmulatorHarness("responses"));
describeProviderConformance(openAIEmulatorHarness("chat"));
describeProviderConformance(scriptedHarness);
describeProviderConformance(replayHarness);
