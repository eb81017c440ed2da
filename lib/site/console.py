"""The terminal output of notebooks that run at the same time, one readable line at a time.

When :mod:`lib.site.pipeline` runs two notebooks at once, each kernel's own stdout and stderr (its
progress bars, :mod:`lib.progress`, and anything written below Python) go to a :class:`LineRelay`
instead of the terminal. The relay prints every line prefixed with its notebook (``[03] ...``), and a
progress bar, which redraws itself in place with ``\\r``, as one line at most every ``interval``
seconds plus its final state, so that two bars never overwrite each other. The kernel writes to a
pseudo-terminal when the pipeline's stderr is a terminal (its bars are then drawn, at the terminal's
width less the prefix), else to a pipe (bars stay off, as they do in a log).

What the notebook's cells print never passes here: it goes into the executed notebook, as before.
"""
from __future__ import annotations

import codecs
import fcntl
import os
import pty
import re
import struct
import sys
import termios
import threading
import time
from typing import TextIO

__all__ = ["LineRelay", "strip_ansi"]

#: a terminal control sequence (cursor moves, colours) as tqdm and others write them
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Za-z0-9]")


def strip_ansi(text: str) -> str:
    """``text`` without terminal control sequences (``\\x1b[A`` and the like).

    Args:
        text: a line as a program wrote it for a terminal.

    Returns:
        The printable text.
    """
    return _ANSI.sub("", text)


class LineRelay:
    """Read what one kernel writes and print it on ``out``, one prefixed line at a time.

    Use as a context manager: ``fd`` is the descriptor to give the kernel as its stdout and
    stderr; on exit the relay prints what is left and stops.

    Args:
        label: the prefix, e.g. ``"03"`` (printed as ``[03]`` before each line).
        out: where lines go (the pipeline's stderr).
        interval: the least number of seconds between two printed states of one progress bar.
        lock: serializes the lines of several relays on ``out``.
    """

    def __init__(self, label: str, out: TextIO | None = None, interval: float = 10.0,
                 lock: threading.Lock | None = None):
        self.label = label
        self.out = out if out is not None else sys.stderr
        self.interval = float(interval)
        self.lock = lock if lock is not None else threading.Lock()
        self.fd = -1
        self._read_fd = -1
        self._thread: threading.Thread | None = None
        self._bar = ""          # the last state of a bar drawn in place, not printed yet
        self._bar_printed = float("-inf")  # when a state of a bar was last printed
        self._line = ""          # text after the last line end

    def __enter__(self) -> "LineRelay":
        try:
            tty = self.out.isatty()
        except (AttributeError, ValueError):
            tty = False
        if tty:
            self._read_fd, self.fd = pty.openpty()
            self._configure_terminal()
        else:
            self._read_fd, self.fd = os.pipe()
        self._thread = threading.Thread(target=self._pump, name=f"relay {self.label}", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self, timeout: float = 5.0) -> None:
        """Stop: close the kernel's end, print what was read, and wait up to ``timeout`` s for the reader.

        A process the kernel started that still holds its end (it outlived the kernel) is not waited
        for beyond ``timeout``.
        """
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
        if self._read_fd >= 0:
            try:
                os.close(self._read_fd)
            except OSError:
                pass
            self._read_fd = -1

    def _configure_terminal(self) -> None:
        """No ``\\n`` -> ``\\r\\n`` on output, and the real terminal's size less the prefix."""
        attrs = termios.tcgetattr(self.fd)
        attrs[1] &= ~termios.OPOST
        termios.tcsetattr(self.fd, termios.TCSANOW, attrs)
        try:
            size = fcntl.ioctl(self.out.fileno(), termios.TIOCGWINSZ, b"\0" * 8)
            rows, cols, xpix, ypix = struct.unpack("HHHH", size)
            cols = max(20, cols - len(self.label) - 3)
            fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, xpix, ypix))
        except (OSError, ValueError, AttributeError):
            pass

    def _pump(self) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        while True:
            try:
                chunk = os.read(self._read_fd, 65536)
            except OSError:  # EIO: every writer of the pseudo-terminal has closed it
                chunk = b""
            if not chunk:
                break
            self.feed(decoder.decode(chunk))
        self.feed(decoder.decode(b"", final=True))
        self.flush()

    def feed(self, text: str, now: float | None = None) -> None:
        """Take text as the kernel wrote it: print each finished line, and a bar's state now and then.

        Args:
            text: the next piece of output (any length, line ends anywhere).
            now: the time (default :func:`time.monotonic`); tests pass it.
        """
        now = time.monotonic() if now is None else now
        for piece in re.split(r"(\r\n|\r|\n)", text):
            if piece in ("\n", "\r\n"):
                self._emit(self._line)
                self._line, self._bar = "", ""
            elif piece == "\r":  # the text so far is a state of a bar drawn in place
                if self._line.strip():
                    self._bar = self._line
                    if now - self._bar_printed >= self.interval:
                        self._emit(self._bar)
                        self._bar, self._bar_printed = "", now
                self._line = ""
            else:
                self._line += piece

    def flush(self) -> None:
        """Print the unfinished line, or else the last state of a bar not printed yet."""
        rest = self._line if self._line.strip() else self._bar
        self._line, self._bar = "", ""
        self._emit(rest)

    def _emit(self, text: str) -> None:
        text = strip_ansi(text).rstrip()
        if not text.strip():
            return
        with self.lock:
            self.out.write(f"[{self.label}] {text}\n")
            self.out.flush()
