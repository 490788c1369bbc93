import { api, tokenInput } from "./api.ts";
import type { Caller } from "./api-types.ts";
import { byId } from "./dom.ts";
import { showProblem } from "./problem.ts";

/**
 * Who the token is and what its role may do (`may`): views leave out the
 * buttons it may not use. The server refuses them anyway; the page only
 * does not offer them.
 */

type Role = Caller["role"];

const ROLE_RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

/** The token's identity ("http:ana"); null without a token or until the API says. */
export let identity: string | null = null;
/** The token's role; null without a token or until the API says. */
export let role: Role | null = null;
/** Views that offer actions wait for this before they draw. */
export let roleKnown: Promise<void> = Promise.resolve();

// Until the token's role is known, nothing is left out.
export const may = (needed: Role): boolean => role === null || ROLE_RANK[role] >= ROLE_RANK[needed];

/** Asks the API who the token is (GET /identity) and shows it in the header. */
export function whoAmI(): Promise<void> {
  const shown = byId("identity");
  roleKnown = (async () => {
    if (!tokenInput.value) {
      identity = null;
      role = null;
      shown.textContent = "";
      return;
    }
    try {
      const me = await api<Caller>("/identity");
      identity = me.identity;
      role = me.role || null;
      shown.textContent = "as " + identity + (role ? " (" + role + ")" : "");
    } catch (error) {
      identity = null;
      role = null;
      shown.textContent = "";
      showProblem(error);
    }
  })();
  return roleKnown;
}
