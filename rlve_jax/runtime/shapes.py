"""The one bucket rule for compiled shapes: sizes round up to powers of two, so a few compilations
serve every batch (the engine's slots and prefill batches, the sampler's chunks and prompt lengths,
the training micro-batches)."""

from __future__ import annotations


def pow2_at_least(n: int) -> int:
    """The smallest power of two >= n (1 for n <= 1)."""
    return 1 << max(0, n - 1).bit_length()


def pow2_at_most(n: int) -> int:
    """The largest power of two <= n (n >= 1)."""
    return 1 << (n.bit_length() - 1)


def bucket(length: int, minimum: int = 16, cap: int | None = None) -> int:
    """A length rounded up to a power of two, at least `minimum`, at most `cap`."""
    size = max(minimum, pow2_at_least(length))
    return size if cap is None else min(cap, size)
