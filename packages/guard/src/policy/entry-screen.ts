import type { PermissionDecision, Scope, ToolEffect } from "@rein/contracts";
import { escapeGlob } from "./glob-literal.ts";
import { decidePermission, type PolicyLayers } from "./permission-policy.ts";
import { resourcesOutside } from "./resource-match.ts";

/**
 * The permission policy over the entries an enumerating tool would return
 * (`list_files`, `search_files`): the call's pattern passed the policy, but
 * a deny or ask rule may cover part of it, so each file or directory is
 * decided as if the call named it alone.
 */
export interface EntryScreen {
  /** Whether `path` (workspace-relative, as found on disk) may be returned; what it withholds is counted. */
  admits(path: string): boolean;
  /** What was withheld, as a sentence for the model, or undefined when nothing was. */
  note(noun: "entries" | "files"): string | undefined;
}

export interface EntryScreenOptions {
  tool: string;
  effect: ToolEffect;
  layers: PolicyLayers;
  /** The step's grant for the tool: an entry outside it is withheld too. */
  grant: Scope;
  argBytes: number;
  /** The decision the call got; when it was an `ask` a person approved, entries under that same rule were approved with it. */
  approved?: PermissionDecision;
}

/**
 * Deny withholds an entry. Ask withholds it too, and the note says how many
 * need a person and which rule says so: the narrower answer, since a person
 * approving "list docs" was not shown the entries an ask rule singles out.
 * Only the call's own approved ask rule admits what it covers. The note
 * counts entries, never what they hold, so a search for a secret's text
 * reads the same whether or not a withheld file holds it.
 */
export function entryScreen(options: EntryScreenOptions): EntryScreen {
  let denied = 0;
  const asking = new Map<string, number>();
  return {
    admits(path) {
      const scope = { paths: [escapeGlob(path)] };
      if (resourcesOutside(scope, options.grant).length > 0) {
        denied += 1;
        return false;
      }
      const decision = decidePermission({ tool: options.tool, effect: options.effect, scope, argBytes: options.argBytes }, options.layers);
      if (decision.decision === "allow") return true;
      if (decision.decision === "ask" && options.approved?.decision === "ask" && options.approved.rule === decision.rule) return true;
      if (decision.decision === "deny") denied += 1;
      else asking.set(decision.rule, (asking.get(decision.rule) ?? 0) + 1);
      return false;
    },
    note(noun) {
      const parts: string[] = [];
      if (denied > 0) parts.push(`${count(denied, noun)} withheld by the permission policy`);
      const waiting = [...asking.values()].reduce((sum, value) => sum + value, 0);
      if (waiting > 0) {
        const rules = [...asking.keys()].join(", ");
        parts.push(
          `${count(waiting, noun)} ${waiting === 1 ? "needs" : "need"} a person's approval (rule ${rules}) and ${waiting === 1 ? "is" : "are"} not shown; a call on those paths alone asks for it`,
        );
      }
      return parts.length > 0 ? `${parts.join("; ")}.` : undefined;
    },
  };
}

const SINGULAR = { entries: "entry", files: "file" } as const;
const count = (amount: number, noun: "entries" | "files"): string => `${amount} ${amount === 1 ? SINGULAR[noun] : noun}`;
