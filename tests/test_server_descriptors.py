"""The local server out of file descriptors: more half-sent requests than the process may open.

An outside review sent 1,100 half-sent requests to `agentlab serve` under an open-file limit of
1,024: it spun, logged 58,940 "Too many open files" tracebacks in 12 s, and a normal client
waited 9.4 s. Here the same, scaled down: a server in a child process with a limit of 64
descriptors, 100 stalled clients, then a normal one once they give up.
"""

import json
import pathlib
import socket
import subprocess
import sys
import time

from server_helpers import GOOD, post
from processes import free_port, stop

LIMIT = 64  # open files in the server's process
STALLED = 100

SERVE = """
import resource, sys
resource.setrlimit(resource.RLIMIT_NOFILE, ({limit}, {limit}))
from agentlab.server.web import TutorHTTPServer
server = TutorHTTPServer("127.0.0.1", {port}, client_timeout=30)
print("ready", flush=True)
server.serve_forever()
"""


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process, from /proc (Linux)."""
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / 100  # utime, stime in clock ticks of 1/100 s


def test_running_out_of_descriptors_neither_spins_nor_floods_the_log(tmp_path):
    port, log = free_port(), tmp_path / "serve.log"
    with open(log, "w") as err:
        process = subprocess.Popen(
            [sys.executable, "-c", SERVE.format(limit=LIMIT, port=port)],
            stdout=subprocess.PIPE, stderr=err, text=True)
    stalled = []
    try:
        assert process.stdout.readline().strip() == "ready"
        for _ in range(STALLED):  # each sends half a request head and waits
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
            sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n")
            stalled.append(sock)
        time.sleep(0.5)  # the server is out of descriptors by now
        before = cpu_seconds(process.pid)
        time.sleep(2)
        spent = cpu_seconds(process.pid) - before
        assert spent < 0.5, f"the server spun: {spent:.2f} s of CPU in 2 s"
        lines = log.read_text().splitlines()
        assert len(lines) <= 3, lines[:10]  # a line saying so, not a traceback per try
        assert any("file descriptors" in line for line in lines), lines
        for sock in stalled:  # the stalled clients give up; a normal one comes
            sock.close()
        start = time.perf_counter()
        status, payload = post(("127.0.0.1", port), "/v1/chat/completions",
                               json.dumps(GOOD).encode())
        assert status == 200 and payload["choices"]
        assert time.perf_counter() - start < 3
    finally:
        for sock in stalled:
            sock.close()
        stop(process)
