"""Mesh presets over an experiment config (`--config=configs/mesh/gpu8.py:c256`)."""
