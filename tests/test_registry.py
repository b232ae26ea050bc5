"""Registry: explicit paper collections, one-file environments, broken modules failing alone."""

import textwrap

import pytest

import rlve_jax.gym.environments as environments
from rlve_jax.gym import envs, pool, registry
from rlve_jax.gym.env import ANSWER_TAGS

CUSTOM = '''
"""Echo a number back (a test-only custom environment)."""

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import score_exact


class EchoNumber(Environment):
    """Repeat the number shown."""

    name = "EchoNumber"

    def levels(self, difficulty):
        return [{"N": 10 + difficulty}]

    def sample(self, params, rng):
        value = rng.randint(0, params["N"])
        return {"value": value, "reference": str(value)}

    def prompt(self, data):
        return f"Repeat this number: {data['value']}\\n\\nOutput Format: the number."

    def score(self, data, answer):
        return score_exact(answer, data["value"])
'''


def clear_caches():
    registry._scan.cache_clear()
    registry.collections.cache_clear()
    registry.catalog.cache_clear()
    pool._registered.cache_clear()


@pytest.fixture
def extra_modules(tmp_path, monkeypatch):
    """Files in a temporary directory that the `environments` package also searches."""
    def write(**modules):
        for name, source in modules.items():
            (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))
        monkeypatch.setattr(environments, "__path__", [*environments.__path__, str(tmp_path)])
        clear_caches()

    yield write
    monkeypatch.undo()
    clear_caches()


def test_paper_collections_are_explicit_and_nested():
    c = registry.collections()
    assert {k: len(v) for k, v in c.items()} == {"C1": 1, "C4": 4, "C16": 16, "C256": 256, "C400": 400,
                                                 "HELD_OUT": 50}
    assert set(c["C1"]) <= set(c["C4"]) <= set(c["C16"]) <= set(c["C256"])
    assert not set(c["C256"]) & registry.NOT_IN_C256 and not set(c["C256"]) & set(c["HELD_OUT"])
    assert set(c["C256"]) | registry.NOT_IN_C256 | set(c["HELD_OUT"]) == set(registry.catalog()) == set(c["C400"])
    assert len(set(c["C256"])) == 256


def test_a_new_catalog_row_joins_no_paper_collection(monkeypatch):
    before = registry.collections()
    rows = dict(registry.catalog())
    rows["BrandNew"] = registry.CatalogEntry("BrandNew", "math", "", "", "", "", "none", False)
    clear_caches()
    monkeypatch.setattr(registry, "catalog", lambda: rows)
    try:
        assert registry.collections() == before
    finally:
        monkeypatch.undo()
        clear_caches()


def test_one_new_file_is_a_working_custom_environment(extra_modules, capsys):
    extra_modules(echo_number=CUSTOM)
    assert "EchoNumber" in registry.names() and registry.names()[-1] == "EchoNumber"
    assert registry.entry("EchoNumber").category == "custom"
    assert registry.entry("EchoNumber").problem == "Repeat the number shown."
    assert not any("EchoNumber" in members for members in registry.collections().values())
    env = registry.make("EchoNumber")
    problem = env.generate(2, 5)
    assert env.verify(problem, f"<answer>{env.reference(problem)}</answer>", ANSWER_TAGS).accuracy
    assert registry.resolve("C1,EchoNumber") == ("Multiplication", "EchoNumber")
    with pool.EnvPool(workers=0) as inline:  # the pool reaches it by name
        assert inline.generate([("EchoNumber", 2, 5)]) == [problem]
    envs.main(["list"])
    out = capsys.readouterr().out
    assert "EchoNumber" in out and "custom" in out and "401/401 implemented" in out


def test_broken_modules_fail_alone_with_their_error(extra_modules, capsys):
    extra_modules(
        broken_env="raise ZeroDivisionError('boom at import')\n",
        twice_env='''
            from rlve_jax.gym.env import Environment

            class AnotherSorting(Environment):
                name = "Sorting"
            ''',
        bad_name_env='''
            from rlve_jax.gym.env import Environment

            class Spaced(Environment):
                name = "Has Space, Comma"
            ''',
        echo_number=CUSTOM,
    )
    errors = registry.import_errors()
    assert errors["rlve_jax.gym.environments.broken_env"] == "ZeroDivisionError: boom at import"
    assert "'Sorting' is already defined in rlve_jax.gym.environments.sorting" in errors["rlve_jax.gym.environments.twice_env"]
    assert "not an identifier" in errors["rlve_jax.gym.environments.bad_name_env"]
    assert registry.make("Sorting").__class__.__module__ == "rlve_jax.gym.environments.sorting"
    assert len(registry.names()) == 401  # the 400 and the custom one
    envs.main(["list"])
    captured = capsys.readouterr()
    assert "Sorting" in captured.out and "EchoNumber" in captured.out
    assert "not loaded: rlve_jax.gym.environments.broken_env: ZeroDivisionError: boom at import" in captured.err
    with pytest.raises(KeyError, match="boom at import"):
        registry.make("NotThere")


def test_unknown_names_are_listed_in_one_error():
    with pytest.raises(KeyError, match=r"2 environments are not implemented.*NopeA.*NopeB"):
        registry.make_all(["Sorting", "NopeA", "NopeB"])
