// @rein/models/anthropic: the Messages API adapter; importing it loads @anthropic-ai/sdk.
export { AnthropicProvider } from "./anthropic-provider.ts";
