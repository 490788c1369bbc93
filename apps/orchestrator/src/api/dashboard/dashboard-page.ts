import { createHash } from "node:crypto";
import { browserScript } from "./browser-script.ts";
import { DASHBOARD_STYLE } from "./dashboard-style.ts";

/** The page and the Content-Security-Policy it is served with. */
export interface DashboardPage {
  html: string;
  /** Runs the page's one inline script, by its sha256, and nothing else: no other script, inline or fetched. */
  contentSecurityPolicy: string;
}

let page: DashboardPage | undefined;

/**
 * The web dashboard: one self-contained page over the HTTP API. It lists
 * runs, follows one run's trace live, and lets a person approve or deny
 * (with a note, in the page), answer an escalated run, or cancel. The token
 * arrives once in the fragment of the URL that `rein serve` prints and lives
 * in sessionStorage; every request, the trace stream included, carries it as
 * `Authorization: Bearer`, never in a URL the server sees. Same-origin only:
 * the API grants no cross-site access. The browser code is browser/*.ts
 * (see README.md here), inlined as one script so the page stays one request.
 * Built on first use, not at import: a CLI command that serves no page never reads it.
 */
export function dashboardPage(): DashboardPage {
  page ??= assemble(browserScript());
  return page;
}

function assemble(script: string): DashboardPage {
  const scriptHash = createHash("sha256").update(script).digest("base64");
  const html = `<!doctype html>
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
<script>${script}</script>
</body>
</html>
`;
  return {
    html,
    contentSecurityPolicy: `default-src 'self'; script-src 'sha256-${scriptHash}'; style-src 'unsafe-inline'; frame-ancestors 'none'`,
  };
}
