"""A test-only environment module that takes two seconds to import (like a cold gym on a loaded host)."""

import time

from envs_for_tests import EchoEnv

time.sleep(2.0)


class SlowImportEnv(EchoEnv):
    name = "TestOnlySlowImport"
