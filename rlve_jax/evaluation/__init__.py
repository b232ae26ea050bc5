"""Evaluation: the held-out environments, the paper's benchmarks, and the sandboxed code suite."""
