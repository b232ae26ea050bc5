"""Shared test setup: 8 forced CPU devices (set before JAX is imported), one JAX persistent compilation cache
for the session (the end-to-end tests launch `rlve_jax.main` many times on the same shapes: each compiles
once), and tiny HF checkpoints."""

import os
import tempfile

os.environ.setdefault("JAX_PLATFORMS", "cpu")  # libtpu (test extra: TPU compiles) must not probe for a TPU
_FLAG = "--xla_force_host_platform_device_count=8"
if _FLAG not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {_FLAG}".strip()

# Inherited by every subprocess the tests launch; a fresh directory per session (nothing stale between runs).
os.environ.setdefault("JAX_COMPILATION_CACHE_DIR", tempfile.mkdtemp(prefix="rlve_jax_test_jit_cache_"))

import pytest  # noqa: E402

from models_for_tests import save_random_hf  # noqa: E402


@pytest.fixture(scope="session")
def hf_qwen2(tmp_path_factory):
    """A random Qwen2 checkpoint (q/k/v bias, untied embeddings): (directory, torch model)."""
    return save_random_hf("qwen2", tmp_path_factory.mktemp("hf_qwen2"))


@pytest.fixture(scope="session")
def hf_qwen3(tmp_path_factory):
    """A random Qwen3 checkpoint (q/k norm, tied embeddings): (directory, torch model)."""
    return save_random_hf("qwen3", tmp_path_factory.mktemp("hf_qwen3"))
