"""pallas_compat/matrix/_processes.py: stopping a run stops each child's whole process group,
and nothing starts after."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import pytest

from pallas_compat.matrix import _processes as processes


def test_stop_all_ends_children_and_grandchildren(tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild"
    script = (
        "import subprocess, sys, time\n"
        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)'])\n"
        f"open({str(pid_file)!r}, 'w').write(str(p.pid))\n"
        "time.sleep(300)\n"
    )
    processes.stopping.clear()
    status: list[int] = []
    worker = threading.Thread(
        target=lambda: status.append(processes.run([sys.executable, "-c", script]))
    )
    worker.start()
    deadline = time.monotonic() + 60
    while not (pid_file.exists() and pid_file.read_text()):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    grandchild = int(pid_file.read_text())
    processes.stop_all(grace=5)
    worker.join(30)
    assert status and status[0] != 0
    deadline = time.monotonic() + 10
    while Path(f"/proc/{grandchild}").exists() and time.monotonic() < deadline:
        state = Path(f"/proc/{grandchild}/stat").read_text().rsplit(")", 1)[1].split()[0]
        if state == "Z":
            break
        time.sleep(0.05)
    else:
        assert not Path(f"/proc/{grandchild}").exists()
    with pytest.raises(processes.Stopped):
        processes.run([sys.executable, "-c", "pass"])
    processes.stopping.clear()
    assert processes.run([sys.executable, "-c", "pass"]) == 0
