import type { Role } from "@rein/contracts";
import { type ModelScriptInput, ScriptedProvider } from "@rein/models";
import {
  type AnthropicBrain,
  AnthropicMessagesEmulator,
  brainOfProvider,
  FakeServer,
  OpenAIEmulator,
  type OpenAIEmulatorBrain,
  openAIBrainOfProvider,
} from "@rein/models/testing";

const ROLES: Role[] = ["planner", "worker", "evaluator", "judge"];

/** What `rein run`'s start-up check asks (`checkModelLive`): answered as a model would, not from the script. */
const isStartupCheck = (system: string) => system.startsWith("Rein is checking that this model answers");

export interface EmulatedProviders {
  /** rein.config.json's providers and roles: one provider per role, each behind its own emulator, all on `model`. */
  config: {
    providers: Record<string, { kind: "anthropic" | "openai"; baseURL: string; apiKeyEnv: string; maxRetries: number }>;
    roles: Record<Role, { provider: string; model: string }>;
  };
  /** The keys the config names (the emulators take any Bearer key). */
  env: Record<string, string>;
  /** Every request an emulator refused, across the roles. */
  refusals(): { role: Role; message: string; rule: string }[];
  /** The bodies of the requests `role`'s emulator received, in order. */
  bodies(role: Role): Record<string, unknown>[];
  stop(): Promise<void>;
}

/**
 * Each role's model behind a strict emulator of its provider's API as it is
 * served today (`AnthropicMessagesEmulator`, `OpenAIEmulator`), its words
 * played from `script`; the emulated model thinks before acting, as
 * current models do, so every tool loop carries thinking back and forth.
 */
export async function emulatedProviders(kind: "anthropic" | "openai", model: string, script: ModelScriptInput): Promise<EmulatedProviders> {
  const scripted = new ScriptedProvider(script, { model });
  const servers: FakeServer[] = [];
  const refusalsOf: (() => { role: Role; message: string; rule: string }[])[] = [];
  const config: EmulatedProviders["config"] = { providers: {}, roles: {} as EmulatedProviders["config"]["roles"] };
  const secret = "emulated-providers-shared-secret";
  for (const role of ROLES) {
    if (kind === "anthropic") {
      const played = brainOfProvider(scripted, role);
      const brain: AnthropicBrain = (request) =>
        isStartupCheck(request.system) ? { content: [{ type: "text", text: '{"ok": true}' }], output: { ok: true } } : played(request);
      const emulator = new AnthropicMessagesEmulator({ brain, secret });
      servers.push(await new FakeServer(emulator.respond).start());
      refusalsOf.push(() => emulator.refusals.map((refusal) => ({ role, message: refusal.message, rule: refusal.rule })));
    } else {
      const played = openAIBrainOfProvider(scripted, role);
      const brain: OpenAIEmulatorBrain = (view) =>
        isStartupCheck(view.instructions) ? { content: [{ type: "text", text: '{"ok": true}' }], output: { ok: true } } : played(view);
      const emulator = new OpenAIEmulator({ brain });
      servers.push(await emulator.start());
      refusalsOf.push(() => emulator.refusals.map((refusal) => ({ role, message: refusal.message, rule: refusal.rule })));
    }
    config.providers[role] = {
      kind,
      baseURL: (servers.at(-1) as FakeServer).baseURL,
      apiKeyEnv: `${role.toUpperCase()}_KEY`,
      maxRetries: 0,
    };
    config.roles[role] = { provider: role, model };
  }
  return {
    config,
    env: Object.fromEntries(ROLES.map((role) => [`${role.toUpperCase()}_KEY`, `key-${role}`])),
    refusals: () => refusalsOf.flatMap((read) => read()),
    bodies: (role) => (servers[ROLES.indexOf(role)]?.requests ?? []).map((request) => request.body),
    stop: async () => {
      await Promise.all(servers.map((server) => server.stop()));
    },
  };
}
