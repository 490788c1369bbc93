#!/usr/bin/env python3
"""A Rein plugin in plain Python (standard library only): read-only views over
the incident data in ./data, a write tool that records a finding in the run's
workspace, and a restart that only records itself there (the example has no
real service to restart). It speaks the JSON-lines wire of docs/plugins.md."""

import json
import os
import sys
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
LOG_NOW = "2026-11-30T10:10:00Z"
TOOLS = ["search_logs", "query_metrics", "inspect_deployments", "read_host_state", "record_finding", "restart_service"]


class ToolError(Exception):
    def __init__(self, code, message, retryable=False):
        super().__init__(message)
        self.code = code
        self.retryable = retryable


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def log(level, message):
    send({"type": "log", "level": level, "message": message})


def when(stamp):
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


def read_json(name):
    with open(os.path.join(DATA, name), encoding="utf-8") as handle:
        return json.load(handle)


def number(value):
    """Numbers as JavaScript prints them, so the output matches the TypeScript tools'."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def search_logs(args):
    since = args.get("since_minutes", 10)
    levels = args.get("levels", ["ERROR", "WARN"])
    contains = args.get("contains")
    limit = args.get("limit", 40)
    start = when(LOG_NOW) - timedelta(minutes=since)
    with open(os.path.join(DATA, args["service"] + ".log"), encoding="utf-8") as handle:
        lines = [line.rstrip("\n") for line in handle if line.strip()]
    matching = []
    for line in lines:
        parts = line.split()
        stamp, level = (parts + ["", ""])[:2]
        if when(stamp) >= start and level in levels and (not contains or contains.lower() in line.lower()):
            matching.append(line)
    window = "last %d minutes before %s" % (since, LOG_NOW)
    return "\n".join(["%d matching log lines (%s):" % (len(matching), window)] + matching[:limit])


def query_metrics(args):
    data = read_json("metrics.json")
    start = when(data["now"]) - timedelta(minutes=args.get("minutes", 15))
    unknown = [name for name in args["metrics"] if name not in data["series"]]
    if unknown:
        raise ToolError("unknown_metric", "unknown metric %s; expected some of %s" % (", ".join(unknown), ", ".join(data["series"])))
    rendered = []
    for name in args["metrics"]:
        points = [point for point in data["series"][name] if when(point[0]) >= start]
        rendered.append("%s: %s" % (name, " ".join("%s=%s" % (stamp[11:16], number(value)) for stamp, value in points)))
    return "\n".join(rendered)


def inspect_deployments(args):
    data = read_json("deployments.json")
    hours = args.get("hours", 24)
    mine = sorted((d for d in data["deployments"] if d["service"] == args["service"]), key=lambda d: d["deployedAt"], reverse=True)
    start = when(data["now"]) - timedelta(hours=hours)
    recent = [d for d in mine if when(d["deployedAt"]) >= start]
    window = "last %d hours before %s" % (hours, data["now"])
    lines = ["no deployments of this service in the " + window if not recent else "%d deployment(s) in the %s:" % (len(recent), window)]
    lines += ["- %s at %s by %s: %s" % (d["version"], d["deployedAt"], d["by"], d["change"]) for d in recent]
    latest = mine[0] if mine else None
    lines.append("latest deployment: %s at %s (%s)" % (latest["version"], latest["deployedAt"], latest["change"]) if latest else "never deployed")
    return "\n".join(lines)


def read_host_state(args):
    hosts = [h for h in read_json("hosts.json")["hosts"] if h["service"] == args["service"]]
    running = "running" if all(h["process"] == "running" for h in hosts) else "NOT all running"
    lines = ["%d host(s), all processes %s:" % (len(hosts), running)]
    for h in hosts:
        lines.append(
            "- %s: %s, up %s h, cpu %s%%, mem %s%%, disk %s%%, db connections %s/%s"
            % (h["host"], h["process"], number(h["uptimeHours"]), number(h["cpuPct"]), number(h["memPct"]), number(h["diskPct"]), number(h["dbConnectionsOpen"]), number(h["dbConnectionsMax"]))
        )
    return "\n".join(lines)


def workspace_file(name):
    return os.path.join(os.environ["REIN_WORKSPACE"], name)


def record_finding(args):
    with open(workspace_file("findings.md"), "a", encoding="utf-8") as handle:
        handle.write("- %s\n" % args["finding"])
    return {"recorded": args["finding"], "file": "findings.md"}


def restart_service(args, call_id):
    stamp = datetime.now(timezone.utc).isoformat()
    with open(workspace_file("restarts.log"), "a", encoding="utf-8") as handle:
        handle.write("%s restarted %s (call %s): %s\n" % (stamp, args["service"], call_id, args["reason"]))
    return "rolling restart of %s completed on 2 hosts" % args["service"]


def answer(call):
    tool, args = call["tool"], call["args"]
    if tool == "search_logs":
        return search_logs(args)
    if tool == "query_metrics":
        return query_metrics(args)
    if tool == "inspect_deployments":
        return inspect_deployments(args)
    if tool == "read_host_state":
        return read_host_state(args)
    if tool == "record_finding":
        return record_finding(args)
    if tool == "restart_service":
        return restart_service(args, call["id"])
    raise ToolError("unknown_tool", "no tool called %s" % tool)


def main():
    while True:
        line = sys.stdin.readline()
        if not line:
            return
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            send({"type": "ready", "tools": TOOLS})
        elif kind == "ping":
            send({"type": "pong", "id": message.get("id")})
        elif kind == "call":
            try:
                send({"type": "result", "id": message["id"], "ok": True, "output": answer(message)})
            except ToolError as error:
                send({"type": "result", "id": message["id"], "ok": False, "error": {"code": error.code, "message": str(error), "retryable": error.retryable}})
            except Exception as error:  # a bug in a tool is reported for this call; the plugin keeps serving
                log("error", "%s failed: %r" % (message.get("tool"), error))
                send({"type": "result", "id": message["id"], "ok": False, "error": {"code": "internal", "message": str(error), "retryable": False}})


if __name__ == "__main__":
    main()
