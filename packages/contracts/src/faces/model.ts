// @rein/contracts/model: the provider-neutral conversation every model adapter speaks.
export { ContentBlock, ModelApi, ModelMessage, ModelToolSchema, StructuredOutputRequest, type ThinkingContent } from "../model-message.ts";
