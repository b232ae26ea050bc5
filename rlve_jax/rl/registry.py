"""Named plug points of the RL algorithm: a config key names one registered function.

Each concern (rl/advantages.py, rl/shaping.py, rl/filters.py, rl/losses.py, rl/mismatch.py, rl/entropy.py)
keeps one Registry; adding an estimator or a loss is one decorated function, chosen with its config key
(docs/algorithms.md lists them). Like Tunix's and verl's registries of advantage estimators and losses.
"""

from __future__ import annotations

from typing import Callable, Generic, TypeVar

F = TypeVar("F", bound=Callable)


class Registry(Generic[F]):
    """name -> function, for one config key (`key`, named in the error for an unknown name)."""

    def __init__(self, key: str):
        self.key = key
        self._entries: dict[str, F] = {}

    def register(self, name: str) -> Callable[[F], F]:
        def add(fn: F) -> F:
            if name in self._entries:
                raise ValueError(f"{self.key}: {name!r} is registered twice")
            self._entries[name] = fn
            return fn

        return add

    def __getitem__(self, name: str) -> F:
        if name not in self._entries:
            raise ValueError(f"{self.key}={name!r} is not registered; choose one of {', '.join(self.names())}")
        return self._entries[name]

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def names(self) -> tuple[str, ...]:
        return tuple(self._entries)
