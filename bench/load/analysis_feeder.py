#!/usr/bin/env python3
"""Keeps an arbiter-server's analysis pool busy, for bench/load/analysis_load.sh.

    analysis_feeder.py PORT IDS_FILE STOP_FILE SAMPLES_FILE

POSTs /api/games/{id}/analysis for the ended games of IDS_FILE (one id a line), one after the
other: on 202 the next, on 503 (the queue is full) the same again 0.1 s later. So the queue
never drains and the pool never waits. Every 0.25 s it appends "unix_s searches refused" to
SAMPLES_FILE (searches: /metrics' arbiter_analysis_searches_total; refused: 503s so far). Once
STOP_FILE exists it posts no more and waits until every analysis it queued is done or failed
(so the next idle run starts with an idle pool), then prints one JSON line: queued, done,
failed, refused.
"""
import json
import os
import sys
import time
import urllib.error
import urllib.request

port, ids_file, stop_file, samples_file = sys.argv[1:5]
base = f"http://127.0.0.1:{port}"


def call(method, path):
    request = urllib.request.Request(base + path, method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def searches():
    _, body = call("GET", "/metrics")
    for line in body.decode().splitlines():
        if line.startswith("arbiter_analysis_searches_total "):
            return int(float(line.split()[1]))
    return -1


ids = [line.strip() for line in open(ids_file) if line.strip()]
queued, refused, final = [], 0, {}
last_sample = 0.0
samples = open(samples_file, "a")


def sample():
    global last_sample
    now = time.time()
    if now - last_sample >= 0.25:
        last_sample = now
        samples.write(f"{now:.3f} {searches()} {refused}\n")
        samples.flush()


next_id = 0
while not os.path.exists(stop_file):
    sample()
    if next_id >= len(ids):
        sys.exit("analysis_feeder: out of ended games; make more (--prep-seconds)")
    status, _ = call("POST", f"/api/games/{ids[next_id]}/analysis")
    if status == 202:
        queued.append(ids[next_id])
        next_id += 1
    elif status == 503:
        refused += 1
        time.sleep(0.1)
    else:  # 200: analysed already (an earlier run); 404, 409: not an ended game
        next_id += 1

while len(final) < len(queued):
    sample()
    for game in queued:
        if game not in final:
            status, body = call("GET", f"/api/games/{game}/analysis")
            state = json.loads(body).get("status") if status == 200 else "gone"
            if state in ("done", "failed", "gone"):
                final[game] = state
    time.sleep(0.25)
sample()
# The ids left for the next busy run.
with open(ids_file, "w") as rest:
    rest.write("\n".join(ids[next_id:]) + "\n")
states = list(final.values())
print(json.dumps({"queued": len(queued), "done": states.count("done"),
                  "failed": states.count("failed"), "refused": refused}))
