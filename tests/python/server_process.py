"""Starts the real contactsim-server binary on a free loopback port for the Python tests.

The binary comes from $CONTACTSIM_SERVER (set by ctest). It listens on 127.0.0.1:0 and the chosen
port is read from its startup log line "contactsim-server listening on HOST:PORT (...)". A reader
thread keeps draining the log so the server never blocks on a full pipe.
"""

import os
import re
import subprocess
import threading

_LISTENING = re.compile(r"listening on (\S+:\d+) ")
START_TIMEOUT_S = 120.0  # generous: a loaded 2-core machine may take a while to start it
STOP_TIMEOUT_S = 60.0


class ServerProcess:
    def __init__(self, extra_args=(), listen="127.0.0.1:0"):
        self.binary = os.environ.get("CONTACTSIM_SERVER", "")
        if not self.binary or not os.access(self.binary, os.X_OK):
            raise RuntimeError(
                f"CONTACTSIM_SERVER={self.binary!r} is not an executable: build the target "
                "contactsim-server (ctest sets the variable)")
        self.address = None
        self.log_lines = []
        self._listening = threading.Event()
        self._process = subprocess.Popen(
            [self.binary, "--listen", listen, "--shutdown-grace-s", "5", *extra_args],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True)
        self._reader = threading.Thread(target=self._read_log, daemon=True)
        self._reader.start()
        if not self._listening.wait(START_TIMEOUT_S) or self.address is None:
            self.stop()
            raise RuntimeError("contactsim-server did not report its port; its log:\n" + self.log())

    def _read_log(self):
        for line in self._process.stdout:
            self.log_lines.append(line.rstrip("\n"))
            match = _LISTENING.search(line)
            if match and self.address is None:
                self.address = match.group(1)
                self._listening.set()
        self._listening.set()  # the process ended: wake the waiter either way

    def log(self):
        return "\n".join(self.log_lines)

    def kill(self):
        """SIGKILL: no drain, no flush (a crash or an OOM kill); returns the exit status."""
        if self._process.poll() is None:
            self._process.kill()
        self._process.wait()
        self._reader.join(STOP_TIMEOUT_S)
        return self._process.returncode

    def stop(self):
        """SIGTERM (graceful shutdown), then SIGKILL if it does not end in time; returns the exit
        status."""
        if self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._reader.join(STOP_TIMEOUT_S)
        return self._process.returncode
