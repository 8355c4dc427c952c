"""Headless Chromium for the tests of `hashjack serve`'s page (Debian's
chromium, chromium-driver and python3-selenium; scripts/deps.sh installs
them): tests/e2e/test_web.py plays on it, test_ltc_serve.py reads the
Bitcoin family's page."""

import os
import shutil
import sys

try:
    from selenium import webdriver
except ImportError:
    # Debian's python3-selenium, when python3 is not Debian's own (pyenv)
    sys.path.append("/usr/lib/python3/dist-packages")
    try:
        from selenium import webdriver
    except ImportError:
        sys.stderr.write("no selenium: install Debian's chromium chromium-driver "
                         "python3-selenium (scripts/deps.sh)\n")
        sys.exit(1)
from selenium.webdriver.chrome.service import Service  # noqa: E402


def chromium(workdir):
    """A headless Chromium of its own profile in workdir/chromium, its
    driver's log in workdir/chromedriver.log, page loads and scripts
    bounded to 30 s.  The caller quits it."""
    o = webdriver.ChromeOptions()
    o.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--window-size=1280,2200", "--no-first-run", "--no-default-browser-check",
              "--disable-background-networking", "--disable-component-update",
              "--disable-sync", "--disable-extensions",
              "--user-data-dir=" + os.path.join(workdir, "chromium")):
        o.add_argument(a)
    svc = Service(shutil.which("chromedriver") or "/usr/bin/chromedriver",
                  log_path=os.path.join(workdir, "chromedriver.log"))
    d = webdriver.Chrome(service=svc, options=o)
    d.set_page_load_timeout(30)
    d.set_script_timeout(30)
    return d
