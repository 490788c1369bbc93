export { HostPortEntry, SecretBinding, SecretEntry, type SecretEntryInput } from "./secret-binding.ts";
export { SecretBindings, type SecretRefusal } from "./secret-bindings.ts";
