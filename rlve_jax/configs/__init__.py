"""The experiment configs (`--config=configs/c256.py` in a checkout; `defaults.experiment("c256")` anywhere)."""
