import { APPROVALS_SCRIPT } from "./approvals-script.ts";
import { NAVIGATION_SCRIPT } from "./navigation-script.ts";
import { QUEUES_SCRIPT } from "./queues-script.ts";
import { DASHBOARD_STYLE } from "./dashboard-style.ts";
import { ESCALATION_REPLY_SCRIPT } from "./escalation-reply-script.ts";
import { RUN_PAGE_SCRIPT } from "./run-page-script.ts";
import { RUN_TIMELINE_SCRIPT } from "./run-timeline-script.ts";
import { RUN_VIEW_PANELS_SCRIPT } from "./run-view-panels-script.ts";
import { RUNS_LIST_SCRIPT } from "./runs-list-script.ts";
import { STARTUP_SCRIPT } from "./startup-script.ts";
import { TOKEN_AND_API_SCRIPT } from "./token-and-api-script.ts";

/**
 * The page's views, in the order they are defined: the token and API helpers
 * first, startup last. They are plain scripts sharing one global scope (no
 * modules, no bundler), joined into one inline `<script>` so the CSP needs
 * nothing but `'unsafe-inline'` and the page stays one request.
 */
const SCRIPTS = [
  TOKEN_AND_API_SCRIPT,
  RUNS_LIST_SCRIPT,
  RUN_VIEW_PANELS_SCRIPT,
  RUN_TIMELINE_SCRIPT,
  RUN_PAGE_SCRIPT,
  APPROVALS_SCRIPT,
  ESCALATION_REPLY_SCRIPT,
  QUEUES_SCRIPT,
  NAVIGATION_SCRIPT,
  STARTUP_SCRIPT,
];

/**
 * The web dashboard: one self-contained page over the HTTP API. It lists
 * runs, follows one run's trace live, and lets a person approve or deny
 * (with a note, in the page), answer an escalated run, or cancel. The token
 * arrives once in the fragment of the URL that `rein serve` prints and lives
 * in sessionStorage; every request, the trace stream included, carries it as
 * `Authorization: Bearer`, never in a URL the server sees. Same-origin only:
 * the API grants no cross-site access.
 */
export const DASHBOARD_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Rein</title>
<style>
${DASHBOARD_STYLE.trim()}
</style>
</head>
<body>
<header><h1>Rein</h1><span class="muted" id="summary" data-testid="run-summary"></span><span class="muted" id="runs-live" data-testid="runs-live"></span>
  <nav><a href="#approvals" id="nav-approvals" data-testid="nav-approvals">Approvals</a> <a href="#escalations" id="nav-escalations" data-testid="nav-escalations">Escalations</a> <a href="#queues" id="nav-queues" data-testid="nav-queues">Queues</a></nav>
  <label style="margin-left:auto">token <input id="token" data-testid="token-input" type="password" size="16"></label><span class="muted" id="identity" data-testid="identity"></span></header>
<div id="problem" data-testid="problem" role="alert" hidden></div>
<main>
  <section id="runs" data-testid="runs"></section>
  <section id="detail" data-testid="detail"><p class="muted">Choose a run.</p></section>
</main>
<script>
${SCRIPTS.map((script) => script.trim()).join("\n\n")}
</script>
</body>
</html>
`;
