import { api } from "./api.ts";
import type { QueueOverview } from "./api-types.ts";
import { byId, el, testid } from "./dom.ts";
import { showProblem } from "./problem.ts";
import { rateLimitsSection } from "./rate-limits.ts";
import { currentView, enterView } from "./views.ts";

/**
 * The queues view (GET /queues): jobs per queue by state, and the role
 * processes seen recently with their roles, concurrency, build, the tools a
 * step worker carries from the user's modules and last heartbeat, and the
 * fleet's rate budget per limited model; refreshed every 5 s while it is shown.
 */

const REFRESH_MS = 5000;
let queuesTimer: ReturnType<typeof setInterval> | null = null;

/** Stops the refresh (another view was entered). */
export function stopQueuesRefresh(): void {
  if (queuesTimer) {
    clearInterval(queuesTimer);
    queuesTimer = null;
  }
}

function drawQueues(detail: HTMLElement, overview: QueueOverview): void {
  const cell = (text: string | number, id: string) => testid(el("td", { textContent: String(text) }), id);
  const queueRows = overview.queues.map((queue) => {
    const row = el(
      "tr",
      {},
      cell(queue.queue, "queue-name"),
      cell(queue.waiting + queue.prioritized, "queue-waiting"),
      cell(queue.active, "queue-active"),
      cell(queue.delayed, "queue-delayed"),
      cell(queue.failed, "queue-failed"),
    );
    row.dataset.queue = queue.queue;
    return testid(row, "queue-row");
  });
  const workerRows = overview.workers.map((worker) => {
    const ago = Math.max(0, Math.round((Date.now() - Date.parse(worker.lastHeartbeat)) / 1000));
    const row = el(
      "tr",
      {},
      cell(worker.process, "worker-process"),
      cell(worker.roles.join(", "), "worker-roles"),
      cell(worker.concurrency ?? "config default", "worker-concurrency"),
      cell(worker.build ?? "none", "worker-build"),
      cell(worker.tools?.join(", ") || "—", "worker-tools"),
      testid(el("td", { title: worker.lastHeartbeat, textContent: ago + " s ago" }), "worker-heartbeat"),
    );
    row.dataset.process = worker.process;
    return testid(row, "worker-row");
  });
  const head = (...names: string[]) => el("thead", {}, el("tr", {}, ...names.map((name) => el("th", { textContent: name }))));
  detail.replaceChildren(
    el("h2", { textContent: "Queues" }),
    testid(
      el(
        "table",
        { id: "queue-table", className: "grid" },
        head("queue", "waiting", "active", "delayed", "failed"),
        el("tbody", {}, ...queueRows),
      ),
      "queue-table",
    ),
    el("h2", { textContent: "Workers seen in the last 30 s (" + overview.workers.length + ")" }),
    overview.workers.length
      ? testid(
          el(
            "table",
            { id: "worker-table", className: "grid" },
            head("process", "roles", "concurrency", "build", "your tools", "last heartbeat"),
            el("tbody", {}, ...workerRows),
          ),
          "worker-table",
        )
      : testid(el("p", { className: "muted", textContent: "No role process has reported in the last 30 s." }), "workers-empty"),
    ...rateLimitsSection(overview.rateLimits),
  );
}

export async function showQueues(): Promise<void> {
  enterView("queues");
  const detail = byId("detail");
  const draw = async () => {
    try {
      const overview = await api<QueueOverview>("/queues");
      if (currentView !== "queues") return;
      drawQueues(detail, overview);
    } catch (error) {
      showProblem(error);
    }
  };
  await draw();
  // A second click while this draw was on the wire started its own refresh: keep one, and none once another view is shown.
  stopQueuesRefresh();
  if (currentView !== "queues") return;
  queuesTimer = setInterval(() => {
    if (currentView === "queues") draw();
  }, REFRESH_MS);
}
