// For other packages' tests: hostile text a model or a tool could send, and a secret to look for.
export { INJECTIONS, SECRET, secretLeaks, splitSecretForms } from "./injection-corpus.ts";
