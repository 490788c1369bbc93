import { approvalsCommand, approveCommand, denyCommand } from "./approval-commands.ts";
import { keysCommand, modelsCommand } from "./admin-commands.ts";
import { configCommand } from "./config-commands.ts";
import { lessonsCommand } from "./lesson-commands.ts";
import type { Command } from "./commands.ts";
import { serveCommand, workerCommand } from "./role-commands.ts";
import { runCommand } from "./run-command.ts";
import { cancelCommand, replyCommand, statusCommand, submitCommand } from "./run-commands.ts";
import { evalCommand } from "./eval-commands.ts";
import { replayCommand } from "./replay-commands.ts";
import { runsCommand } from "./runs-commands.ts";
import { traceCommand } from "./trace-commands.ts";
import { applyCommand, diffCommand } from "./workspace-commands.ts";

export const COMMANDS: readonly Command[] = [
  runCommand,
  diffCommand,
  applyCommand,
  submitCommand,
  statusCommand,
  traceCommand,
  replayCommand,
  evalCommand,
  runsCommand,
  cancelCommand,
  replyCommand,
  approvalsCommand,
  approveCommand,
  denyCommand,
  lessonsCommand,
  serveCommand,
  workerCommand,
  modelsCommand,
  configCommand,
  keysCommand,
];
