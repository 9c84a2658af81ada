# SPDX-License-Identifier: GPL-2.0
"""A minimal QMP (QEMU Machine Protocol) client over a unix socket."""

import json
import socket
import time


class QMPError(Exception):
    """QEMU answered a command with an error."""


class QMPClosed(QMPError):
    """QEMU closed the connection: it exited."""


class QMP:
    def __init__(self, path, timeout=30.0):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.sock.connect(path)
                break
            except (FileNotFoundError, ConnectionRefusedError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        self.sock.settimeout(timeout)
        self.file = self.sock.makefile("rwb")
        self.events = []
        # QEMU 7.2 can send an event (RESUME, when a chardev's wait=on
        # held the machine) on a connection whose "opened" it has not yet
        # handled, before the greeting: keep such events, wait for the
        # greeting.
        while True:
            message = self._receive()
            if "QMP" in message:
                break
            if "event" not in message:
                raise QMPError(f"unexpected QMP greeting: {message}")
            self.events.append(message)
        self.execute("qmp_capabilities")

    def _receive(self):
        line = self.file.readline()
        if not line:
            raise QMPClosed("QMP connection closed")
        return json.loads(line)

    def execute(self, command, arguments=None):
        """Run one QMP command and return its "return" value."""
        request = {"execute": command}
        if arguments:
            request["arguments"] = arguments
        try:
            self.file.write(json.dumps(request).encode() + b"\n")
            self.file.flush()
        except (BrokenPipeError, ConnectionResetError):
            raise QMPClosed("QMP connection closed") from None
        while True:
            reply = self._receive()
            if "event" in reply:
                self.events.append(reply)
            elif "error" in reply:
                raise QMPError(f"{command}: {reply['error'].get('desc', reply['error'])}")
            else:
                return reply.get("return")

    def wait_event(self, name, timeout=30.0, match=None):
        """Return the first event called name (seen before or arriving within timeout)."""
        deadline = time.monotonic() + timeout
        while True:
            for event in self.events:
                if event["event"] == name and (match is None or match(event)):
                    self.events.remove(event)
                    return event
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise QMPError(f"no {name} event within {timeout}s")
            self.sock.settimeout(remaining)
            try:
                self.events.append(self._receive())
            except socket.timeout:
                pass

    def close(self):
        try:
            self.file.close()
            self.sock.close()
        except OSError:
            pass
