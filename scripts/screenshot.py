"""Screenshot a page of the built site with headless Chromium: `python scripts/screenshot.py PATH OUT.png`.

Serves site/ on a loopback port for the duration, so no network is needed.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("path", help="site-relative page path, e.g. entries/some-id/")
    parser.add_argument("out", type=Path)
    parser.add_argument("--site", type=Path, default=Path("site"))
    parser.add_argument("--height", type=int, default=1800)
    parser.add_argument("--full", action="store_true", help="capture the whole page")
    args = parser.parse_args()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(args.site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": args.height})
            page.goto(f"http://127.0.0.1:{server.server_port}/{args.path}")
            page.screenshot(path=str(args.out), full_page=args.full)
            browser.close()
    finally:
        server.shutdown()


if __name__ == "__main__":
    main()
