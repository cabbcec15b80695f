"""Every test starts in English, whatever the language of the machine running them.

The command line and the terminal game follow ``LANGUAGE``/``LC_ALL``/``LC_MESSAGES``/``LANG``
(rummy500.i18n); the tests read English texts, so a developer whose terminal speaks Hungarian
still runs them in English (``LANGUAGE`` comes first in gettext's order). Subprocesses inherit
it. The language tests choose their language themselves.
"""

from __future__ import annotations

import os

os.environ["LANGUAGE"] = "en"
