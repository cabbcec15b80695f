"""Every test starts in English, whatever the language of the machine running them.

The command line and the terminal game follow ``LANGUAGE``/``LC_ALL``/``LC_MESSAGES``/``LANG``
(rummy500.i18n); the tests read English texts, so a developer whose terminal speaks Hungarian
still runs them in English (``LANGUAGE`` comes first in gettext's order). Subprocesses inherit
it. The language tests choose their language themselves.
"""

from __future__ import annotations

import os

os.environ["LANGUAGE"] = "en"

from collections.abc import Iterator

import pytest

from rummy500.i18n import set_language


@pytest.fixture(autouse=True)
def _english_again() -> Iterator[None]:
    """A test that ran the command line with ``--lang`` (which sets the process's language, as
    it should for a command) leaves the next test of the same worker in English."""
    yield
    set_language(None)
