import { ApiError, messageOf, tokenInput } from "./api.ts";
import { byId, el, testid } from "./dom.ts";

/** Says what went wrong where the person looks first; a refused token says so rather than "Choose a run." */
export function showProblem(error: unknown): void {
  const banner = byId("problem");
  const refused = error instanceof ApiError && error.status === 401;
  const text = !tokenInput.value
    ? "No API token: open the URL rein serve printed, or paste your token above."
    : refused
      ? "The API refused this token (" + messageOf(error) + "). Paste the token rein serve printed, or yours from --tokens-file."
      : "The API could not be reached: " + messageOf(error);
  banner.replaceChildren(testid(el("span", { className: "error", textContent: text }), "problem-text"));
  banner.hidden = false;
  // The banner says what is wrong; the detail pane stops inviting a choice among runs it cannot show.
  if (!tokenInput.value || refused) {
    byId("detail").replaceChildren(
      el("p", { className: "muted", textContent: "Nothing to show until the API accepts a token (see above)." }),
    );
  }
}

/** Takes the banner down once the API answers. */
export function clearProblem(): void {
  const banner = byId("problem");
  banner.replaceChildren();
  banner.hidden = true;
}
