"""The rollout engine against the static sampler (same keys -> same tokens and logprobs), its refills,
mesh, interruption, budget and decode attention.

Every engine here has the same shapes (4 slots of 32 positions, 12 new tokens, 4-step segments), so the
file compiles the segment once per model layout and mesh; the static sampler's calls share one shape too.
"""

import dataclasses
import functools
import types

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from rlve_jax.models import convert, decode_attention
from rlve_jax.generation import engine, sampler
from rlve_jax.runtime import sharding
from rlve_jax.models.model import ModelConfig

PROMPTS = [[1, 5, 9], [7, 3, 2, 8, 8, 1, 4, 60, 61], [100], [4, 4, 4, 4, 4], [9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 11, 12]]
G, M = 2, 12
LIMITS = [12, 12, 3, 12, 7, 12, 12, 1, 12, 10]  # per-row response limits (forced stops), prompt-major rows
SLOTS = 4  # fewer than the 10 rows: slots are refilled
BUDGET = (SLOTS + 1) * engine.slot_length(16, M)  # 4 slots + one slot's worth for the prefill batch
DECODINGS = {"greedy": (0.0, 1.0), "T=1": (1.0, 1.0), "T=0.6 top-p 0.95": (0.6, 0.95)}


@pytest.fixture(scope="module")
def models(hf_qwen2, hf_qwen3):
    return {"qwen2": convert.load_hf(hf_qwen2[0]), "qwen3": convert.load_hf(hf_qwen3[0])}


def make_engine(model, **kwargs):
    return engine.Engine(model.config, **{"max_prompt_tokens": 16, "max_new_tokens": M, "budget_tokens": BUDGET,
                                          "segment_steps": 4, **kwargs})


def static(model, temperature, top_p, rng, **kwargs):
    return sampler.generate(model, PROMPTS, n_per_prompt=G, max_new_tokens=M, temperature=temperature, top_p=top_p,
                            rng=rng, **{"stop_ids": [-1], **kwargs})


def stops_at_varied_steps(model, temperature, top_p, rng):
    """Two stop ids: tokens that the no-stop rows draw at steps 2 and 7 (rows end at several steps)."""
    free = static(model, temperature, top_p, rng)
    return [int(free.tokens[0, 2]), int(free.tokens[5, 7])]


def assert_same(out, ref):
    np.testing.assert_array_equal(out.tokens, ref.tokens)
    np.testing.assert_allclose(out.logprobs, ref.logprobs, atol=1e-5, rtol=0)
    for field in ("prompt_index", "lengths", "finished", "truncated"):
        np.testing.assert_array_equal(getattr(out, field), getattr(ref, field), err_msg=field)


@pytest.mark.parametrize("decoding", DECODINGS)
@pytest.mark.parametrize("arch", ["qwen2", "qwen3"])
def test_engine_equals_the_static_sampler(models, arch, decoding):
    model, (temperature, top_p) = models[arch], DECODINGS[decoding]
    stops = stops_at_varied_steps(model, temperature, top_p, rng=4)
    ref = static(model, temperature, top_p, 4, stop_ids=stops, row_limits=LIMITS)
    shrink = decoding != "greedy"  # greedy keeps its 4 slots to the end; the others move the tail to fewer
    eng = make_engine(model, shrink=shrink)
    out = eng.generate(model, PROMPTS, n_per_prompt=G, max_new_tokens=LIMITS, temperature=temperature, top_p=top_p,
                       stop_ids=stops, rng=4)
    assert_same(out, ref)
    assert eng.slots == SLOTS < len(LIMITS) and len(set(out.lengths)) >= 3 and out.finished.any()
    prompt_tokens = sum(map(len, PROMPTS))  # each prompt prefilled once; shrinking re-prefills the moved rows
    assert eng.stats.prefills >= 3 and (eng.stats.prefilled_tokens > prompt_tokens) == shrink


def test_scanned_layers_equal_the_static_sampler(hf_qwen3):
    model = convert.load_hf(hf_qwen3[0], dataclasses.replace(ModelConfig.from_hf(hf_qwen3[0]), scan_layers=True))
    ref = static(model, 0.9, 1.0, 7, row_limits=LIMITS)
    out = make_engine(model).generate(model, PROMPTS, n_per_prompt=G, max_new_tokens=LIMITS, temperature=0.9,
                                      rng=7, stop_ids=[-1])
    assert_same(out, ref)


def test_eight_device_mesh_equals_one_device(models):
    model = models["qwen3"]
    mesh = sharding.make_mesh(data=4, fsdp=1, tensor=2)
    for temperature in (0.0, 0.9):
        single = make_engine(model).generate(model, PROMPTS, n_per_prompt=G, temperature=temperature, rng=2)
        sharded = make_engine(model, mesh=mesh).generate(model, PROMPTS, n_per_prompt=G, temperature=temperature,
                                                         rng=2)
        assert_same(sharded, single)


def rows_of(prompts, temperature=1.0):
    return [engine.Row(i * G + g, list(p), M, temperature) for i, p in enumerate(prompts) for g in range(G)]


def test_an_interrupted_row_resumes_as_if_never_stopped(models):
    model = models["qwen3"]
    key = jax.random.key(11)
    whole = make_engine(model).run(model, rows_of(PROMPTS), key)
    eng = make_engine(model)
    segments = iter(range(3))
    first = eng.run(model, rows_of(PROMPTS), key, should_stop=lambda: next(segments) == 1)
    cut = [r for r in first if not r.done]
    assert any(r.tokens for r in cut) and any(not r.tokens for r in cut)  # mid-row and not yet started
    assert eng._state is None  # interrupted rows left their slots: the run released the slot cache
    before = {r.row_id: len(r.tokens) for r in cut}
    resumed = {r.row_id: r for r in eng.run(model, cut, jax.random.key(99), version=1)}  # rows keep their keys
    for a, b in zip(whole, first):
        b = resumed.get(b.row_id, b)
        assert a.tokens == b.tokens and a.finished == b.finished and b.done
        np.testing.assert_allclose(a.logprobs, b.logprobs, atol=1e-5, rtol=0)
        cut_at = before.get(b.row_id, len(b.tokens))
        assert b.versions == [0] * cut_at + [1] * (len(b.tokens) - cut_at)  # the policy version of each token


def test_rows_paused_after_some_steps_resume_as_if_never_paused(models):
    """A run of `steps` tokens per row (partial rollouts' phases) leaves each row not done at exactly that many more
    tokens; the next run continues it as one whole run would have."""
    model = models["qwen3"]
    key = jax.random.key(11)
    whole = make_engine(model).run(model, rows_of(PROMPTS), key)
    eng = make_engine(model)
    paused = eng.run(model, rows_of(PROMPTS), key, steps=3)
    assert all(r.done or (len(r.tokens) == 3 and not r.finished) for r in paused) and not all(r.done for r in paused)
    eng.run(model, [r for r in paused if not r.done], key, steps=4, version=1)
    eng.run(model, [r for r in paused if not r.done], key, version=2)
    for a, b in zip(whole, paused):
        assert a.tokens == b.tokens and a.finished == b.finished and b.done
        np.testing.assert_allclose(a.logprobs, b.logprobs, atol=1e-5, rtol=0)
        n = len(b.tokens)
        assert b.versions == ([0] * min(n, 3) + [1] * min(max(n - 3, 0), 4) + [2] * max(n - 7, 0))


def test_new_settings_and_new_params_do_not_recompile(models):
    model = models["qwen3"]
    eng = make_engine(model)
    eng.generate(model, PROMPTS, n_per_prompt=G, temperature=0.5, rng=1)
    compiled = engine._segment._cache_size(), engine._first_tokens._cache_size()
    graphdef, state = nnx.split(model)
    new = nnx.merge(graphdef, jax.tree.map(lambda x: x * 1.01, state))
    eng.generate(new, PROMPTS, n_per_prompt=G, temperature=[0.3, 0.0, 1.2, 1.0, 0.7], top_p=0.9, top_k=5,
                 stop_ids=[3], rng=jax.random.key(9))
    assert (engine._segment._cache_size(), engine._first_tokens._cache_size()) == compiled


def test_compiled_shapes_stay_within_the_engines_bound():
    """Runs of 2 to 10 rows with ragged limits and tail shrinking compile no more shapes than the bound (a
    model no other test uses, so every shape it needs is compiled here)."""
    from rlve_jax.models.model import Transformer

    model = Transformer(ModelConfig.preset("micro"), rngs=nnx.Rngs(3))
    eng = make_engine(model, shrink=True)
    functions = {name: getattr(engine, name) for name in eng.compiled_shapes_bound()}
    before = {name: f._cache_size() for name, f in functions.items()}
    for n, limit in ((1, 3), (3, M), (5, 7)):
        eng.generate(model, PROMPTS[:n], n_per_prompt=G, max_new_tokens=limit, rng=n)
    compiled = {name: f._cache_size() - before[name] for name, f in functions.items()}
    bound = eng.compiled_shapes_bound()
    print(f"compiled {compiled}, bound {bound}")
    assert all(compiled[name] <= bound[name] for name in bound) and compiled["_segment"] >= 2
    assert bound == {"_segment": 3, "_first_tokens": 3, "_prefill": 2 * 2, "_insert": 3 * 2 * 2}


def test_the_engine_holds_no_more_cache_than_its_budget(models):
    model = models["qwen3"]
    eng = make_engine(model)
    held = []
    eng.run(model, rows_of(PROMPTS), jax.random.key(0),
            should_stop=lambda: held.append(sum(x.nbytes for x in jax.tree.leaves(eng._state.cache))) and False)
    per_token = engine.kv_bytes_per_token(model.config)
    assert max(held) == eng.cache_bytes == SLOTS * eng.slot_length * per_token
    assert min(held) < max(held)  # the tail ran on fewer slots
    assert max(held) < eng.peak_cache_bytes <= BUDGET * per_token  # slots plus the largest prefill batch
    with pytest.raises(ValueError, match=r"set rollout.cache_budget_tokens >= 64 ") as error:
        make_engine(model, budget_tokens=63)
    assert "\n" not in str(error.value)


def test_budget_helpers():
    cfg = ModelConfig.preset("qwen2.5-1.5b")
    assert engine.kv_bytes_per_token(cfg) == 28_672  # 28 layers x (K, V) x 2 heads x 128 dims x bf16
    assert engine.slot_length(2048, 24576) == 26_624 and engine.slots_for_budget(10 * 26_624, 26_624) == 9
    assert engine.default_budget_tokens(cfg, 26_624, engine.devices_free_bytes(jax.local_devices())) == (
        engine.CPU_BUDGET_BYTES // 28_672)  # CPU: no memory_stats

    class Device:
        def memory_stats(self):
            return {"bytes_limit": 80 << 30, "bytes_in_use": 20 << 30}

    free = engine.devices_free_bytes([Device(), Device()])  # the least any of them has
    assert free == (80 << 30) * 0.9 - (20 << 30)
    logits = engine.LOGITS_COPIES * 4 * cfg.vocab_size
    slot = 26_624 * 28_672 + logits
    assert engine.default_budget_tokens(cfg, 26_624, free) == int(free) // slot * 26_624  # one device
    # A (1, 2, 2) sampler mesh: slots over 2 devices, each holding 1 of its slots' 2 KV heads; tensor 4 does not
    # divide the heads: each device holds both heads of all its slots.
    halves = types.SimpleNamespace(shape={"data": 1, "fsdp": 2, "tensor": 2})
    assert engine.default_budget_tokens(cfg, 26_624, free, halves) == int(free) // (slot - 26_624 * 14_336) * 2 * 26_624
    whole = types.SimpleNamespace(shape={"data": 1, "fsdp": 1, "tensor": 4})
    assert engine.default_budget_tokens(cfg, 26_624, free, whole) == int(free) // slot * 26_624


@pytest.mark.parametrize("impl", ["blockwise", "pallas_gpu_interpret"])
def test_decode_attention_equals_dense_softmax(impl):
    B, N, K, S, H = 4, 4, 2, 256, 32
    q, k, v = (jax.random.normal(jax.random.key(i), shape) for i, shape in
               enumerate([(B, N, H), (B, S, K, H), (B, S, K, H)]))
    lengths = jnp.array([1, 17, 256, 133])
    got = decode_attention.decode_attention(q, k, v, lengths, impl=impl)
    kk, vv = jnp.repeat(k, N // K, axis=2), jnp.repeat(v, N // K, axis=2)  # [B, S, N, H]
    scores = jnp.einsum("BNH,BSNH->BNS", q, kk) / jnp.sqrt(H)
    scores = jnp.where(jnp.arange(S)[None, None] < lengths[:, None, None], scores, -jnp.inf)
    expected = jnp.einsum("BNS,BSNH->BNH", jax.nn.softmax(scores, axis=-1), vv)
    np.testing.assert_allclose(got, expected, atol=2e-6)
    garbage = k.at[:, 128:].set(jnp.nan)  # key blocks past the rows' lengths are never read
    partial = decode_attention.decode_attention(q[:2], garbage[:2], v[:2], lengths[:2], impl=impl)
    np.testing.assert_allclose(partial, expected[:2], atol=2e-6)


def test_the_gpu_kernel_reads_the_slot_cache_where_it_lies():
    """Lowered for CUDA from this host: the Triton call takes the [B, S, K, H] cache itself, with no transpose of
    it before the call (one per layer and decode step; vmapping the library's per-head function over the head axis
    would make one)."""
    B, N, K, S, H = 4, 12, 2, 1024, 128
    q = jax.ShapeDtypeStruct((B, N, H), jnp.bfloat16)
    cache = jax.ShapeDtypeStruct((B, S, K, H), jnp.bfloat16)
    lengths = jax.ShapeDtypeStruct((B,), jnp.int32)
    attend = jax.jit(functools.partial(decode_attention.decode_attention, impl="pallas_gpu"))
    text = attend.trace(q, cache, cache, lengths).lower(lowering_platforms=("cuda",)).as_text()
    call = next(line for line in text.splitlines() if "xla.gpu.triton" in line)
    assert "tensor<4x1024x2x128xbf16>, tensor<4x1024x2x128xbf16>" in call
    assert "stablehlo.transpose" not in text


def test_partial_rollouts_resume_exactly_after_sigkill_with_rows_in_flight(tmp_path):
    """The tiny run with partial rollouts, killed right after a checkpoint that holds carried rows and
    resumed from it, ends with the uninterrupted run's parameters, scheduler and metrics."""
    import json
    import shutil
    import signal
    import time

    from test_trainer import final_state, run_main

    # One decode step per segment: the warm-started policy's short answers leave a group unfinished when the batch
    # fills (with 2 steps per segment every round's groups finish together and nothing is carried).
    partial = ["--config.rollout.partial_rollouts=True", "--config.rollout.segment_steps=1",
               "--config.checkpoint.keep=10"]
    reference = tmp_path / "reference"
    run_main(reference, *partial)
    carrying = [int(p.name) for p in sorted((reference / "checkpoints").iterdir(), key=lambda p: p.name)
                if p.name.isdigit() and json.loads((p / "meta" / "metadata").read_text())["collector"]["carried"]]
    assert carrying and carrying[0] < 4, "no checkpoint with rows in flight: the test would prove nothing"
    k = carrying[0]
    killed = tmp_path / "killed"
    process = run_main(killed, *partial, wait=False)
    deadline = time.time() + 900
    while not (killed / "checkpoints" / str(k) / "meta" / "metadata").exists():
        assert process.poll() is None, process.stderr.read().decode()[-4000:]
        assert time.time() < deadline
        time.sleep(0.1)
    process.send_signal(signal.SIGKILL)
    process.wait()
    for later in (killed / "checkpoints").iterdir():  # resume from checkpoint k, whatever was written after it
        if later.name.isdigit() and int(later.name) > k:
            shutil.rmtree(later)
    run_main(killed, *partial)
    step, params, scheduler = final_state(killed)
    ref_step, ref_params, ref_scheduler = final_state(reference)
    assert step == ref_step == 4 and scheduler == ref_scheduler
    for a, b in zip(params, ref_params):
        np.testing.assert_array_equal(a, b)
    train = [[json.loads(line) for line in (d / "metrics.jsonl").read_text().splitlines()] for d in (killed, reference)]
    train = [[r for r in records if r["kind"] == "train" and "rollout/reward" in r] for records in train]
    assert [r["step"] for r in train[0]] == [r["step"] for r in train[1]]
    for a, b in zip(*train):
        for key in ("rollout/carried_rows", "rollout/staleness_mean", "rollout/reward", "train/loss"):
            assert a[key] == b[key], key
    assert max(r["rollout/staleness_max"] for r in train[1]) >= 1  # carried tokens were trained on a step later
