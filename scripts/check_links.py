"""Every link of the built docs site lands: linkchecker over the site, served on loopback.

    python scripts/check_links.py site/

linkchecker checks only the site's own pages (no address outside it) and every ``#anchor``
they link to (``scripts/linkchecker.ini``). It is given the site over HTTP on 127.0.0.1, not
as files: run as root, linkchecker drops to the user nobody, who may not read a checkout under
a private home folder. Exit status: linkchecker's (0 every link lands, 1 one does not), or 2
when there is no built site.
"""

from __future__ import annotations

import argparse
import functools
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

CONFIG = Path(__file__).with_name("linkchecker.ini")


class SiteHandler(SimpleHTTPRequestHandler):
    def end_headers(self) -> None:
        # linkchecker keeps to 10 requests a second on a host that does not send this header
        self.send_header("LinkChecker", "allowed")
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:  # one line per file is noise
        pass


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path)
    site = parser.parse_args().site.resolve()
    if not (site / "index.html").is_file():
        print(f"check_links: {site}: no built site (nox -s docs builds one)", file=sys.stderr)
        return 2
    handler = functools.partial(SiteHandler, directory=str(site))
    with ThreadingHTTPServer(("127.0.0.1", 0), handler) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{server.server_address[1]}/index.html"
        checked = subprocess.run(
            [sys.executable, "-m", "linkcheck", "--config", str(CONFIG), "--no-status", url]
        )
        server.shutdown()
    return checked.returncode


if __name__ == "__main__":
    sys.exit(main())
