import { approvalsCommand, approveCommand, denyCommand } from "./approval-commands.ts";
import { keysCommand, modelsCommand } from "./admin-commands.ts";
import type { Command } from "./commands.ts";
import { serveCommand, workerCommand } from "./role-commands.ts";
import { runCommand } from "./run-command.ts";
import { cancelCommand, replyCommand, statusCommand, submitCommand, traceCommand } from "./run-commands.ts";

export const COMMANDS: readonly Command[] = [
  runCommand,
  submitCommand,
  statusCommand,
  traceCommand,
  cancelCommand,
  replyCommand,
  approvalsCommand,
  approveCommand,
  denyCommand,
  serveCommand,
  workerCommand,
  modelsCommand,
  keysCommand,
];
