"""The fault server of scripts/soak: HTTP/1.1 on 127.0.0.1 (an ephemeral port), serving a set of
generated files with ranges, strong ETags and If-Range, and injecting faults.

Every fault is a pure function of (seed, file, Range header, how many times that exact request
was seen in this run), so a seed replays the same plan for the same requests; concurrency can
still change which requests are made (segment sizes depend on timing). A file gets at most
`max_faults` faulty answers per run (reset_run() starts a run), so every file can succeed within
swget's default 20 tries, except the files planned to fail:

- `missing`: 404 on every request (swget's exit status 8);
- `refused`: the connection is closed before any answer, on every request (exit status 4).

Faults (each request draws one, or none):
- close:   a full head, then the body cut at a random offset, then the connection closed;
- stall:   a full head and part of the body, then silence for `stall_seconds`, then close;
- etag:    the file changes (new content, new ETag) before the answer (at most 3 times a run);
- norange: a Range request answered 200 with the whole file;
- badrange: a 206 whose Content-Range names other bytes or another total than the body holds;
- retry:   500 or 503 with Retry-After: 1;
- trickle: the answer sent in 512-byte pieces, 5 ms apart, for about a second, then at full speed.
"""

import hashlib
import random
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FAULTS = ["close", "stall", "etag", "norange", "badrange", "retry", "trickle"]
LAST_MODIFIED = "Tue, 01 Sep 2026 10:00:00 GMT"


def file_size(seed, index):
    """Log-uniform between 1 KiB and 2 MiB."""
    rng = random.Random(f"{seed}/size/{index}")
    return int(1024 * (2048 ** rng.random()))


def content(seed, index, version):
    """The bytes of version `version` of file `index` (deterministic)."""
    size = file_size(seed, index)
    return random.Random(f"{seed}/content/{index}/{version}").randbytes(size)


def plan_of(seed, index):
    """'missing', 'refused' or 'ok': about 2% and 1% of the files are planned to fail."""
    draw = random.Random(f"{seed}/plan/{index}").random()
    return "missing" if draw < 0.02 else "refused" if draw < 0.03 else "ok"


class FaultPlan:
    """The shared state: current versions, counts of requests and faults, the statistics."""

    def __init__(self, seed, count, fault_rate=0.3, max_faults=6, max_versions_per_run=3, stall_seconds=3.0):
        self.seed = seed
        self.count = count
        self.fault_rate = fault_rate
        self.max_faults = max_faults
        self.max_versions_per_run = max_versions_per_run
        self.stall_seconds = stall_seconds
        self.lock = threading.Lock()
        self.version = [0] * count
        self.cache = {}
        self.seen = {}
        self.faults_this_run = [0] * count
        self.versions_this_run = [0] * count
        self.stats = {name: 0 for name in FAULTS + ["requests", "clean", "missing", "refused"]}

    def reset_run(self):
        """A new swget run: fresh fault budgets (the files keep their current versions)."""
        with self.lock:
            self.seen.clear()
            self.faults_this_run = [0] * self.count
            self.versions_this_run = [0] * self.count

    def body(self, index, version):
        key = (index, version)
        with self.lock:
            data = self.cache.get(key)
        if data is None:
            data = content(self.seed, index, version)
            with self.lock:
                self.cache[key] = data
        return data

    def decide(self, index, range_header):
        """(fault or None, the version to serve, an RNG for the fault's details)."""
        with self.lock:
            self.stats["requests"] += 1
            key = (index, range_header)
            nth = self.seen.get(key, 0)
            self.seen[key] = nth + 1
            digest = hashlib.sha256(f"{self.seed}/{index}/{range_header}/{nth}".encode()).digest()
            rng = random.Random(digest)
            fault = None
            if rng.random() < self.fault_rate and self.faults_this_run[index] < self.max_faults:
                fault = rng.choice(FAULTS)
                if fault == "etag":
                    if self.versions_this_run[index] >= self.max_versions_per_run:
                        fault = None
                    else:
                        self.versions_this_run[index] += 1
                        self.version[index] += 1
                if fault in ("norange", "badrange") and range_header is None:
                    fault = None
            if fault:
                self.faults_this_run[index] += 1
                self.stats[fault] += 1
            else:
                self.stats["clean"] += 1
            return fault, self.version[index], rng


def etag_of(index, version):
    return f'"f{index}-v{version}"'


def parse_range(header, size):
    """(first, last) of a single `bytes=a-b` / `bytes=a-` range inside the file, else None."""
    if not header or not header.startswith("bytes=") or "," in header:
        return None
    first_text, _, last_text = header[6:].partition("-")
    if not first_text.isdigit():
        return None
    first = int(first_text)
    last = int(last_text) if last_text.isdigit() else size - 1
    if first >= size or last < first:
        return None
    return first, min(last, size - 1)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "soak"
    plan: FaultPlan = None  # set by make_server

    def log_message(self, *args):
        pass

    def do_GET(self):
        try:
            self.answer()
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            self.close_connection = True

    def answer(self):
        plan = self.plan
        name = self.path.rsplit("/", 1)[-1]
        stem = name.split(".", 1)[0]
        if not self.path.startswith("/f/") or not stem.isdigit() or int(stem) >= plan.count:
            return self.simple(404, b"no such file\n")
        index = int(stem)
        kind = plan_of(plan.seed, index)
        if kind == "missing":
            with plan.lock:
                plan.stats["missing"] += 1
            return self.simple(404, b"not found\n")
        if kind == "refused":
            with plan.lock:
                plan.stats["refused"] += 1
            return self.drop()
        range_header = self.headers.get("Range")
        fault, version, rng = plan.decide(index, range_header)
        if fault == "retry":
            return self.simple(rng.choice([500, 503]), b"try again\n", [("Retry-After", "1")])
        data = plan.body(index, version)
        size = len(data)
        etag = etag_of(index, version)
        if_range = self.headers.get("If-Range")
        same_file = if_range is None or if_range in (etag, LAST_MODIFIED)
        wanted = parse_range(range_header, size) if same_file else None
        if range_header and same_file and wanted is None:
            return self.simple(416, b"", [("Content-Range", f"bytes */{size}")])
        if fault == "norange":
            wanted = None
        headers = [("ETag", etag), ("Last-Modified", LAST_MODIFIED), ("Accept-Ranges", "bytes"),
                   ("Content-Type", "application/octet-stream")]
        if wanted:
            first, last = wanted
            body = data[first:last + 1]
            status = 206
            claimed = f"bytes {first}-{last}/{size}"
            if fault == "badrange":
                shift = rng.randint(1, 4096)
                wrong = [f"bytes {first + shift}-{last + shift}/{size + shift}", f"bytes {first}-{last}/{size + shift}"]
                if first > 0:
                    start = max(0, first - shift)
                    wrong.append(f"bytes {start}-{start + len(body) - 1}/{size}")
                claimed = rng.choice(wrong)
            headers.append(("Content-Range", claimed))
        else:
            body = data
            status = 200
        self.send_response(status)
        for key, value in headers + [("Content-Length", str(len(body)))]:
            self.send_header(key, value)
        self.end_headers()
        if fault == "close":
            self.wfile.write(body[:rng.randrange(len(body))] if body else b"")
            return self.drop()
        if fault == "stall":
            self.wfile.write(body[:rng.randrange(len(body))] if body else b"")
            self.wfile.flush()
            threading.Event().wait(plan.stall_seconds)
            return self.drop()
        if fault == "trickle":
            sent = 0
            for _ in range(200):
                if sent >= len(body):
                    break
                self.wfile.write(body[sent:sent + 512])
                self.wfile.flush()
                sent += 512
                threading.Event().wait(0.005)
            body = body[sent:]
        self.wfile.write(body)

    def simple(self, status, body, extra=()):
        self.send_response(status)
        for key, value in extra:
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def drop(self):
        """Closes the connection now (no more answers on it)."""
        self.close_connection = True
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        """A client that hangs up (swget cancelling a segment, or killed) is not an error here."""


def make_server(plan):
    """A started server on 127.0.0.1 (ephemeral port), serving in a daemon thread."""
    handler = type("SoakHandler", (Handler,), {"plan": plan})
    server = Server(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, name="soak-server", daemon=True)
    thread.start()
    return server
