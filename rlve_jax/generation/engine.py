"""Rollout engine: continuous batching over a fixed set of decode slots.

A fixed number of slots (sized from a KV-token budget) each hold one row's KV cache
(`model.SlotCache`, [slots, slot_length, K, H] per layer: the prefill cache's layout, and the one the TPU decode
kernel's pages are a view of). One jitted *segment* runs K decode steps over
all slots (static shapes, donated state, parameters and sampling settings as traced arguments, so new
weights or settings never recompile); between segments the host retires finished rows and inserts
pending ones into the free slots. A pending prefix (a prompt, or a prompt plus the tokens a row already
has) is prefilled once and its cache copied to every slot of the rows that share it, so a prompt's G
fresh rows cost one prefill. Decode attention reads only up to each row's live length
(rlve_jax/models/decode_attention.py), not the allocation.

Sampling is exactly `sampler.generate`'s: row r draws token t with fold_in(fold_in(key, r), t), from
`sampler.sample_tokens`, so a row's tokens depend on (key, row id, parameters) only: not on its slot,
the segment, the other rows, or on being interrupted and resumed (a resumed row is re-prefilled from
its prompt and tokens). Memory: the slot cache plus one prefill batch within the rest of the budget
(`prefill_tokens`, at least one slot's worth) is everything the engine allocates for KV;
`Engine.peak_cache_bytes` measures it. Both are freed when `run` returns (`Engine.release`): between
runs (the train step, evaluation) the engine holds no device memory. The engine describes its own shapes
for the planner (rlve_jax/plan.py): `sizing` arithmetic, `abstract_state`, and `prefill_call` /
`segment_call`, its jitted functions with abstract arguments to lower or export. On CPU, once nothing
is left to insert and at most half the slots are live, the live rows move to a smaller slot set (a step
there costs what its rows cost).
Partial rollouts (rlve_jax/rl/rollout.py) decode in runs of `steps` tokens per row and pass the rows not done
to a later run: each Row carries its key, tokens, logprobs and the policy version of each token.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
from typing import Any, Callable, NamedTuple, Sequence

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx
from jax.sharding import Mesh

from rlve_jax.runtime import sharding
from rlve_jax.runtime.shapes import bucket, pow2_at_least, pow2_at_most
from rlve_jax.models import decode_attention
from rlve_jax.models.model import ModelConfig, SlotCache, Transformer
from rlve_jax.generation.sampler import SampleOutput, _per_row, kv_bytes_per_token, sample_tokens

CPU_BUDGET_BYTES = 1 << 30  # KV cache on a backend without memory_stats (CPU): 1 GiB
MEMORY_MARGIN = 0.1  # of the device memory kept free beside the cache (activations, fragmentation)
LOGITS_COPIES = 4  # f32 [slots, V] arrays alive in a decode step (logits, scaled, filtered, probs)


def slot_length(max_prompt_tokens: int, max_new_tokens: int) -> int:
    """Cache positions a slot needs: the prompt, then every generated token but the last (never fed back),
    rounded up to 16 (the decode attention's smallest key block)."""
    return -(-(max_prompt_tokens + max_new_tokens - 1) // 16) * 16


def slots_for_budget(budget_tokens: int, slot_len: int) -> int:
    """Decode slots a KV budget holds: one slot's worth of tokens is kept for the prefill batch."""
    return max(0, budget_tokens // slot_len - 1)


def shardable_slots(slots: int, mesh: Mesh | None) -> int:
    """Slots rounded down to a multiple of the mesh's data-parallel devices, so the slot cache is split
    over them (fit_spec replicates an axis they do not divide: every device would hold every slot)."""
    parallel = 1 if mesh is None else mesh.shape["data"] * mesh.shape["fsdp"]
    return slots - slots % parallel if slots >= parallel else slots


def free_bytes(limit: float, in_use: float, reserve_bytes: float) -> float:
    """One device's memory left to the KV cache: its limit less the margin, what is in use and the reserve."""
    return limit * (1 - MEMORY_MARGIN) - in_use - reserve_bytes


def devices_free_bytes(devices: Sequence[jax.Device], reserve_bytes: float = 0) -> float | None:
    """The least free_bytes of the devices, from their memory_stats now (so after parameters and optimizer state,
    which are resident); None without memory_stats (CPU)."""
    stats = [d.memory_stats() for d in devices]
    if any(not s or "bytes_limit" not in s for s in stats):
        return None
    return min(free_bytes(s["bytes_limit"], s["bytes_in_use"], reserve_bytes) for s in stats)


def kv_heads_per_device(cfg: ModelConfig, mesh: Mesh | None) -> int:
    """KV heads of each slot that one device holds: split over the tensor axis where it divides them, else all
    (sharding.cache_sharding replicates them over it)."""
    tensor = 1 if mesh is None else mesh.shape["tensor"]
    return cfg.num_kv_heads // tensor if cfg.num_kv_heads % tensor == 0 else cfg.num_kv_heads


def default_budget_tokens(cfg: ModelConfig, slot_len: int, free: float | None, mesh: Mesh | None = None) -> int:
    """The KV budget when none is set: the whole slots that `free` bytes on each device (its least over the
    sampler's devices; the planner passes what its plan leaves free) hold, counted as the slot cache is laid out
    (slots over the data axes, each device holding kv_heads_per_device of each of its slots), each slot with its
    decode step's logits. None (no memory known: CPU): CPU_BUDGET_BYTES of cache."""
    if free is None:
        return CPU_BUDGET_BYTES // kv_bytes_per_token(cfg)
    per_slot = (slot_len * kv_bytes_per_token(cfg) * kv_heads_per_device(cfg, mesh) // cfg.num_kv_heads
                + LOGITS_COPIES * 4 * cfg.vocab_size)  # on one device
    data_parallel = 1 if mesh is None else mesh.shape["data"] * mesh.shape["fsdp"]
    return int(max(0, free) // per_slot) * data_parallel * slot_len


def budget_error(budget_tokens: int, slot_len: int, budget_key: str = "rollout.cache_budget_tokens") -> str:
    """The one-line reason a budget holds no decode slot."""
    return (f"a KV budget of {budget_tokens} tokens holds no decode slot of {slot_len} tokens beside its "
            f"prefill: set {budget_key} >= {2 * slot_len} (or lower the prompt/response token limits)")


class SlotState(NamedTuple):
    """The decode slots' state, carried (donated) through the jitted segment; every row field is [S]."""

    cache: Any  # SlotCache per layer ([S, slot_length, K, H]), or one stacked SlotCache ([L, S, ...])
    token: jax.Array  # [S] int32, the last sampled token (fed to the next step)
    step: jax.Array  # [S] int32, tokens the row has
    offset: jax.Array  # [S] int32, its prompt length (where its response starts in the cache)
    live: jax.Array  # [S] bool, still decoding
    limit: jax.Array  # [S] int32, its max_new_tokens
    keys: jax.Array  # [S, key width] uint32, its key data
    temperature: jax.Array  # [S] float32
    top_p: jax.Array  # [S] float32
    top_k: jax.Array  # [S] int32


ROW_FIELDS = SlotState._fields[1:]
ROW_DTYPES = dict(token=jnp.int32, step=jnp.int32, offset=jnp.int32, live=jnp.bool_, limit=jnp.int32,
                  keys=jnp.uint32, temperature=jnp.float32, top_p=jnp.float32, top_k=jnp.int32)
EMPTY_ROW = dict(temperature=1.0, top_p=1.0, top_k=-1)  # an empty slot needs no top-k/top-p filter; 0 elsewhere


@dataclasses.dataclass(frozen=True)
class Sizing:
    """The engine's sizes: what its KV budget holds."""

    slot_length: int  # cache positions per slot
    budget_tokens: int  # KV tokens in all: the slots, then one prefill batch
    slots: int  # decode slots at most (a run allocates no more than its rows need: `slots_for_rows`)
    prefill_tokens: int  # the prefill batch's tokens at most (the budget's rest, at least one slot's worth)


def sizing(cfg: ModelConfig, *, max_prompt_tokens: int, max_new_tokens: int, budget_tokens: int | None = None,
           mesh: Mesh | None = None, reserve_bytes: int = 0) -> Sizing:
    """The engine's sizes for a budget (None: what the mesh's devices have free now, less reserve_bytes)."""
    slot_len = slot_length(max_prompt_tokens, max_new_tokens)
    budget = budget_tokens
    if not budget:
        devices = jax.local_devices() if mesh is None else list(mesh.devices.flat)
        budget = default_budget_tokens(cfg, slot_len, devices_free_bytes(devices, reserve_bytes), mesh)
    slots = shardable_slots(slots_for_budget(budget, slot_len), mesh)
    return Sizing(slot_len, budget, slots, budget - slots * slot_len)


@dataclasses.dataclass
class Row:
    """One response: its prompt, the tokens it has so far (a resumed row) and how it samples."""

    row_id: int  # names its sampling keys: token t uses fold_in(fold_in(key, row_id), t)
    prompt: list[int]
    max_new_tokens: int
    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = -1
    tokens: list[int] = dataclasses.field(default_factory=list)
    logprobs: list[float] = dataclasses.field(default_factory=list)  # the sampler's, per token
    versions: list[int] = dataclasses.field(default_factory=list)  # the policy version that drew each token
    key: np.ndarray | None = None  # its own key data (a row carried from an earlier run); None: from row_id
    finished: bool = False  # ended on a stop id
    done: bool = False  # finished, or reached max_new_tokens


@dataclasses.dataclass
class EngineStats:
    segments: int = 0
    decode_steps: int = 0  # steps run by segments (each over all slots)
    slot_steps: int = 0  # decode steps x slots they ran over (the compute a CPU pays)
    prefills: int = 0  # prefill calls
    prefilled_tokens: int = 0  # prefix tokens prefilled (padding excluded)
    kv_tokens_read: int = 0  # sum over decode steps of the live rows' attended lengths


def _place(x, mesh: Mesh | None, spec_fn=sharding.batch_sharding):
    x = jnp.asarray(x)
    return x if mesh is None else jax.device_put(x, spec_fn(mesh, x.shape))


@functools.partial(jax.jit, static_argnames=("graphdef", "mesh"))
def _prefill(graphdef, params, tokens, lengths, *, mesh: Mesh | None):
    """Prefixes [P, Lb] right-padded -> their caches (LayerCache [.., P, Lb, K, H]) and last logits [P, V]."""
    model: Transformer = nnx.merge(graphdef, params)
    P, Lb = tokens.shape
    positions = jnp.broadcast_to(jnp.arange(Lb, dtype=jnp.int32), (P, Lb))
    with decode_attention.traced_under(mesh):  # attention kernels (TPU splash) run per shard of the batch
        h, cache = model.hidden(tokens, positions, positions < lengths[:, None], model.init_cache(P, Lb))
    return cache, model.logits(h[jnp.arange(P), lengths - 1])


@jax.jit
def _first_tokens(logits, keys, step, limit, temperature, top_p, top_k, stop_ids):
    """Each inserted row's token `step` from its prefix's last logits [I, V] -> (token, logprob, done) [I]."""
    row_keys = jax.vmap(jax.random.fold_in)(jax.random.wrap_key_data(keys), step)
    token, logprob = sample_tokens(logits, row_keys, temperature, top_p, top_k)
    return token, logprob, jnp.isin(token, stop_ids) | (step + 1 >= limit)


@functools.partial(jax.jit, static_argnames=("mesh",), donate_argnames=("slots",))
def _insert(slots: SlotState, pre_cache, dst, src, rows: SlotState, *, mesh: Mesh | None) -> SlotState:
    """Copy prefill rows src [I] into slots dst [I] (dst = slot count: an unused entry) and set those
    slots' per-row state (`rows`: [I] values of every row field, no cache)."""

    def put(slot, pre):  # slot [.., S, Ls, K, H] <- pre [.., P, Lb, K, H] rows src
        lead = (slice(None),) * (slot.ndim - 4)
        new = pre[(*lead, src)].astype(slot.dtype)  # [.., I, Lb, K, H]
        return slot.at[(*lead, dst, slice(0, pre.shape[-3]))].set(new, mode="drop")

    cache = sharding.constrain(jax.tree.map(put, slots.cache, _as_slot(pre_cache)), mesh, sharding.cache_sharding)
    return slots._replace(cache=cache, **{f: getattr(slots, f).at[dst].set(getattr(rows, f), mode="drop")
                                          for f in ROW_FIELDS})


def _as_slot(cache):
    """LayerCache leaves -> SlotCache of the same arrays (so tree.map pairs them with the slot cache)."""
    if isinstance(cache, list):
        return [SlotCache(c.k, c.v) for c in cache]
    return SlotCache(cache.k, cache.v)


@functools.partial(jax.jit, static_argnames=("graphdef", "steps", "mesh"), donate_argnames=("slots",))
def _segment(graphdef, params, slots: SlotState, stop_ids, pad_id, min_free, *, steps: int, mesh: Mesh | None):
    """Up to `steps` decode steps over every slot; stops early once no slot is live or `min_free` slots
    are free (so that waiting rows take them). -> (slots, tokens [S, steps], logprobs [S, steps], steps
    run, KV positions read)."""
    model: Transformer = nnx.merge(graphdef, params)
    S = slots.token.shape[0]

    def cond(carry):
        i, s, *_ = carry
        return (i < steps) & jnp.any(s.live) & (jnp.sum(~s.live) < min_free)

    def body(carry):
        i, s, out_tokens, out_logprobs, read = carry
        live = s.live
        position = jnp.where(live, s.offset + s.step - 1, 0)  # [S] where the last token goes
        with decode_attention.traced_under(mesh):  # its kernels run per shard of the slot cache
            h, cache = model.hidden(s.token[:, None], position[:, None], cache=s.cache, decode=True)
        cache = sharding.constrain(cache, mesh, sharding.cache_sharding)
        keys = jax.vmap(jax.random.fold_in)(jax.random.wrap_key_data(s.keys), s.step)
        token, logprob = sample_tokens(model.logits(h[:, 0]), keys, s.temperature, s.top_p, s.top_k)
        out_tokens = out_tokens.at[:, i].set(jnp.where(live, token, pad_id))
        out_logprobs = out_logprobs.at[:, i].set(jnp.where(live, logprob, 0.0))
        done = jnp.isin(token, stop_ids) | (s.step + 1 >= s.limit)
        read = read + jnp.sum(jnp.where(live, position + 1, 0))
        s = s._replace(cache=cache, token=jnp.where(live, token, s.token), step=jnp.where(live, s.step + 1, s.step),
                       live=live & ~done)
        return i + 1, s, out_tokens, out_logprobs, read

    init = (jnp.int32(0), slots, jnp.full((S, steps), pad_id, jnp.int32), jnp.zeros((S, steps), jnp.float32),
            jnp.int32(0))
    n, slots, tokens, logprobs, read = jax.lax.while_loop(cond, body, init)
    return slots, tokens, logprobs, n, read


class Engine:
    """Decode slots for one model shape, prompt capacity and response limit (see the module docstring)."""

    def __init__(self, cfg: ModelConfig, *, max_prompt_tokens: int, max_new_tokens: int,
                 budget_tokens: int | None = None, segment_steps: int = 16, mesh: Mesh | None = None,
                 pad_id: int = 0, budget_key: str = "rollout.cache_budget_tokens", shrink: bool | None = None,
                 reserve_bytes: int = 0):
        self.cfg, self.mesh, self.pad_id = cfg, mesh, pad_id
        # Tail shrinking: once nothing is left to insert and at most half the slots are live, the live rows
        # move (re-prefilled) to a power-of-two smaller slot set. Worth it where a step's cost follows its
        # row count (CPU); on accelerators a decode step costs about the same with fewer rows.
        self.shrink = jax.default_backend() == "cpu" if shrink is None else shrink
        self.max_prompt_tokens, self.max_new_tokens = max_prompt_tokens, max_new_tokens
        self.segment_steps = segment_steps
        self.sizing = sizing(cfg, max_prompt_tokens=max_prompt_tokens, max_new_tokens=max_new_tokens,
                             budget_tokens=budget_tokens, mesh=mesh, reserve_bytes=reserve_bytes)
        self.slot_length, self.budget_tokens = self.sizing.slot_length, self.sizing.budget_tokens
        self.slots, self.prefill_tokens = self.sizing.slots, self.sizing.prefill_tokens
        if self.slots < 1:
            raise ValueError(budget_error(self.budget_tokens, self.slot_length, budget_key))
        self.stats = EngineStats()
        self.peak_cache_bytes = 0
        self._state: SlotState | None = None  # allocated by run, released when it returns
        self._active = 0  # slots in _state (fewer than self.slots after shrinking)

    # -- Shapes, for the planner and the cross-lowering tests (nothing allocated) --------------------------

    def slots_for_rows(self, rows: int) -> int:
        """Slots a run of `rows` rows allocates: no more than its rows need (a power of two), at most `slots`."""
        return min(self.slots, pow2_at_least(rows))

    def cache_bytes_for(self, n_slots: int) -> int:
        """Bytes of a slot cache of n_slots slots (all devices together)."""
        return n_slots * self.slot_length * kv_bytes_per_token(self.cfg)

    @property
    def cache_bytes(self) -> int:
        """The full slot cache's bytes (the prefill batch comes on top, at most prefill_tokens)."""
        return self.cache_bytes_for(self.slots)

    def largest_prefill(self, rows: int, group: int) -> tuple[int, int]:
        """(prefixes, padded length) of the largest prefill batch a run of `rows` fresh rows in groups of
        `group` (rows sharing a prompt) forms: prompts of max_prompt_tokens, as many as free slots take."""
        length = bucket(self.max_prompt_tokens, cap=self.slot_length)
        groups = -(-self.slots_for_rows(rows) // group)
        return max(1, min(pow2_at_most(max(1, self.prefill_tokens // length)), pow2_at_least(groups))), length

    def compiled_shapes_bound(self) -> dict[str, int]:
        """The most shapes each jitted function compiles over any runs: slot counts are powers of two up to
        `slots` (and `slots`), a prefill batch is a power of two of prefixes within prefill_tokens, each of
        a bucketed length up to the slot length; an insert pairs a slot count with a prefill batch."""
        slot_counts = len({min(self.slots, 1 << i) for i in range(self.slots.bit_length() + 1)})
        lengths = len({bucket(1 << i, cap=self.slot_length) for i in range(self.slot_length.bit_length() + 1)})
        batches = max(1, self.prefill_tokens // 16).bit_length()  # 1, 2, 4, ... prefixes of >= 16 tokens
        return {"_segment": slot_counts, "_first_tokens": slot_counts, "_prefill": batches * lengths,
                "_insert": slot_counts * batches * lengths}

    def _row_struct(self, shape: tuple[int, ...], dtype) -> jax.ShapeDtypeStruct:
        placed = None if self.mesh is None else sharding.batch_sharding(self.mesh, shape)
        return jax.ShapeDtypeStruct(shape, jnp.dtype(dtype), sharding=placed)

    def abstract_state(self, n_slots: int) -> SlotState:
        """The slot state of n_slots slots as abstract arrays with the shardings `run` gives them."""
        cfg = self.cfg
        shape = (n_slots, self.slot_length, cfg.num_kv_heads, cfg.head_dim)
        if cfg.scan_layers:
            shape = (cfg.num_layers, *shape)
        placed = None if self.mesh is None else sharding.cache_sharding(self.mesh, shape)
        layer = lambda: jax.ShapeDtypeStruct(shape, jnp.dtype(cfg.compute_dtype), sharding=placed)  # noqa: E731
        cache = (SlotCache(layer(), layer()) if cfg.scan_layers
                 else [SlotCache(layer(), layer()) for _ in range(cfg.num_layers)])
        key_width = jax.random.key_data(jax.random.key(0)).shape[-1]
        rows = {f: self._row_struct((n_slots, key_width) if f == "keys" else (n_slots,), ROW_DTYPES[f])
                for f in ROW_FIELDS}
        return SlotState(cache, **rows)

    def prefill_call(self, graphdef, params, prefixes: int, length: int) -> tuple[Callable, tuple, dict]:
        """(jitted prefill, its arguments, keywords) for a batch of `prefixes` x `length` tokens; params may
        be abstract: `fn.lower(*args, **kwargs)` or jax.export of it."""
        return _prefill, (graphdef, params, self._row_struct((prefixes, length), jnp.int32),
                          self._row_struct((prefixes,), jnp.int32)), dict(mesh=self.mesh)

    def segment_call(self, graphdef, params, n_slots: int, n_stop_ids: int = 1) -> tuple[Callable, tuple, dict]:
        """(jitted decode segment, its arguments, keywords) over n_slots slots (see prefill_call)."""
        scalar = jax.ShapeDtypeStruct((), jnp.int32)
        return _segment, (graphdef, params, self.abstract_state(n_slots),
                          jax.ShapeDtypeStruct((n_stop_ids,), jnp.int32), scalar, scalar), dict(
                              steps=self.segment_steps, mesh=self.mesh)

    # -- Running -----------------------------------------------------------------------------------------

    def release(self) -> None:
        """Free the slot state (run calls it as it returns: between runs the engine holds no device memory)."""
        self._state, self._active = None, 0

    def _allocate(self, n_slots: int) -> None:
        """Replace the slot state by n_slots empty slots (the old cache is released first)."""
        self.release()
        empty = jax.tree.map(lambda x: jnp.zeros(x.shape, x.dtype, device=x.sharding), self.abstract_state(n_slots))
        self._state = empty._replace(**{f: jnp.full(getattr(empty, f).shape, value, ROW_DTYPES[f],
                                                    device=getattr(empty, f).sharding)
                                        for f, value in EMPTY_ROW.items()})
        self._active = n_slots

    def _prefill_batch(self, graphdef, params, queue: collections.deque, n_rows: int):
        """Prefill the next prefixes of the queue (at least one, at most n_rows rows' worth and
        prefill_tokens tokens). -> (cache, logits, [(row, src)])."""
        groups: list[list[Row]] = []
        longest = 0
        while queue and sum(map(len, groups)) < n_rows:
            group = queue[0]
            length = len(group[0].prompt) + len(group[0].tokens)
            padded = bucket(max(longest, length), cap=self.slot_length)
            if groups and pow2_at_least(len(groups) + 1) * padded > self.prefill_tokens:
                break
            groups.append(queue.popleft())
            longest = max(longest, length)
        padded = bucket(longest, cap=self.slot_length)
        P = pow2_at_least(len(groups))
        while P * padded > self.prefill_tokens:  # a power of two over the count may not fit: split the batch
            queue.appendleft(groups.pop())
            P = pow2_at_least(len(groups))
        tokens = np.full((P, padded), self.pad_id, np.int32)
        lengths = np.ones(P, np.int32)
        for i, group in enumerate(groups):
            prefix = group[0].prompt + group[0].tokens
            tokens[i, :len(prefix)] = prefix
            lengths[i] = len(prefix)
        cache, logits = _prefill(graphdef, params, _place(tokens, self.mesh), _place(lengths, self.mesh),
                                 mesh=self.mesh)
        self.stats.prefills += 1
        self.stats.prefilled_tokens += int(lengths[:len(groups)].sum())
        pre_bytes = sum(x.nbytes for x in jax.tree.leaves(cache))
        self.peak_cache_bytes = max(self.peak_cache_bytes, self.cache_bytes_for(self._active) + pre_bytes)
        return cache, logits, [(row, i) for i, group in enumerate(groups) for row in group]

    def run(self, model: Transformer, rows: Sequence[Row], key: jax.Array, *, stop_ids: Sequence[int] = (),
            should_stop: Callable[[], bool] | None = None, version: int = 0, steps: int | None = None) -> list[Row]:
        """Decode every row until it is done, or has `steps` more tokens (None: no such bound), or until
        should_stop() (asked after each segment) is true.

        Rows are updated in place (tokens, logprobs, versions = `version`, finished, done) and returned;
        rows left not done were paused or interrupted and can be passed to a later run (under the same or new
        parameters). A row without its own `key` draws from fold_in(key, row_id); the run sets it.
        The slot cache is released when the run returns.
        """
        for row in rows:
            if not 1 <= row.max_new_tokens <= self.max_new_tokens:
                raise ValueError(f"row {row.row_id}: max_new_tokens {row.max_new_tokens} outside "
                                 f"[1, {self.max_new_tokens}]")
            if len(row.prompt) + row.max_new_tokens - 1 > self.slot_length or not row.prompt:
                raise ValueError(f"row {row.row_id}: a prompt of {len(row.prompt)} tokens does not fit the "
                                 f"engine's slots of {self.slot_length} tokens")
            row.done = row.done or len(row.tokens) >= row.max_new_tokens
        try:
            self._decode(model, rows, key, stop_ids, should_stop, version, steps)
        finally:
            self.release()
        return list(rows)

    def _decode(self, model: Transformer, rows: Sequence[Row], key: jax.Array, stop_ids: Sequence[int],
                should_stop: Callable[[], bool] | None, version: int, steps: int | None) -> None:
        graphdef, params = nnx.split(model)
        if self.mesh is not None:
            params = jax.device_put(params, sharding.state_shardings(params, self.mesh, fsdp=False))
        todo = [r for r in rows if not r.done]
        if not todo:
            return
        limits = {}  # id(row) -> the length this run decodes it to
        for row in todo:
            if row.key is None:
                row.key = np.asarray(jax.random.key_data(jax.random.fold_in(key, row.row_id)))
            limits[id(row)] = min(row.max_new_tokens, len(row.tokens) + (steps or row.max_new_tokens))
        self._allocate(self.slots_for_rows(len(todo)))
        stops = jnp.asarray(list(stop_ids) or [-1], jnp.int32)
        stop_set = set(stop_ids)
        queue = collections.deque(_prefix_groups(todo))
        free = list(range(self._active))
        occupant: dict[int, Row] = {}
        pending: list = []  # [(row, src)] of the current prefill batch not yet inserted
        pre = None
        while True:
            while free and (pending or queue):
                if not pending:
                    *pre, pending = self._prefill_batch(graphdef, params, queue, len(free))
                take, pending = pending[:len(free)], pending[len(free):]
                self._insert_rows(pre, take, free, occupant, stops, stop_set, version, limits)
            if not pending:
                pre = None
            if not occupant:
                break
            # With rows waiting, the segment ends once an eighth of the slots (at least one) are free.
            waiting = bool(pending or queue)
            idle = self._active - len(occupant)
            min_free = idle + max(1, self._active // 8) if waiting else self._active + 1
            self._state, tokens, logprobs, n, read = _segment(graphdef, params, self._state, stops,
                                                              jnp.int32(self.pad_id), jnp.int32(min_free),
                                                              steps=self.segment_steps, mesh=self.mesh)
            tokens, logprobs = np.asarray(tokens), np.asarray(logprobs)
            live, steps = np.asarray(self._state.live), np.asarray(self._state.step)
            self.stats.segments += 1
            self.stats.decode_steps += int(n)
            self.stats.slot_steps += int(n) * self._active
            self.stats.kv_tokens_read += int(read)
            for slot, row in list(occupant.items()):
                new = steps[slot] - len(row.tokens)  # tokens this segment sampled for the row
                row.tokens += tokens[slot, :new].tolist()
                row.logprobs += logprobs[slot, :new].tolist()
                row.versions += [version] * int(new)
                if not live[slot]:
                    row.finished = bool(row.tokens) and row.tokens[-1] in stop_set
                    row.done = row.finished or len(row.tokens) >= row.max_new_tokens
                    del occupant[slot]
                    free.append(slot)
            if should_stop is not None and should_stop():
                break  # rows still in slots were interrupted: their tokens stay with the Row
            if self.shrink and not queue and not pending and 0 < len(occupant) <= self._active // 2:
                queue.extend([row] for row in occupant.values())  # resumed rows: re-prefilled from their tokens
                occupant.clear()
                self._allocate(pow2_at_least(len(queue)))
                free = list(range(self._active))

    def _insert_rows(self, pre, take, free, occupant, stops, stop_set, version: int, limits: dict[int, int]) -> None:
        """Start rows `take` [(row, prefill index)] in the first free slots, each decoding to its length in
        `limits` (by id)."""
        cache, logits = pre
        S = self._active
        dst, src = np.full(S, S, np.int32), np.zeros(S, np.int32)
        values = {f: np.full(S, EMPTY_ROW.get(f, 0), ROW_DTYPES[f]) for f in ("offset", "step", "temperature",
                                                                             "top_p", "top_k")}
        values["limit"] = np.ones(S, np.int32)
        values["keys"] = np.zeros((S, *take[0][0].key.shape), np.uint32)
        for i, (row, source) in enumerate(take):
            dst[i], src[i] = free[i], source
            for f, value in (("offset", len(row.prompt)), ("step", len(row.tokens)), ("limit", limits[id(row)]),
                             ("temperature", row.temperature), ("top_p", row.top_p), ("top_k", row.top_k),
                             ("keys", row.key)):
                values[f][i] = value
        place = functools.partial(_place, mesh=self.mesh)
        values = {f: place(v) for f, v in values.items()}
        token, logprob, done = _first_tokens(place(jnp.take(logits, src, axis=0)), values["keys"], values["step"],
                                             values["limit"], values["temperature"], values["top_p"],
                                             values["top_k"], stops)
        rows = SlotState(cache=None, token=token, live=~done, **{**values, "step": values["step"] + 1})
        self._state = _insert(self._state, cache, place(dst), place(src), rows, mesh=self.mesh)
        token, logprob, done = np.asarray(token), np.asarray(logprob), np.asarray(done)
        used = free[:len(take)]
        del free[:len(take)]
        for i, (row, _) in enumerate(take):
            row.tokens.append(int(token[i]))
            row.logprobs.append(float(logprob[i]))
            row.versions.append(version)
            if done[i]:  # stopped at its first token: the slot stays free
                row.finished = int(token[i]) in stop_set
                row.done = row.finished or len(row.tokens) >= row.max_new_tokens
                free.append(used[i])
            else:
                occupant[used[i]] = row

    def generate(self, model: Transformer, prompts: Sequence[Sequence[int]], *, n_per_prompt: int = 1,
                 max_new_tokens=None, temperature=1.0, top_p=1.0, top_k=-1, stop_ids: Sequence[int] = (),
                 rng: jax.Array | int = 0, prompt_ids: Sequence[int] | None = None) -> SampleOutput:
        """sampler.generate's contract (same rows, same keys, same outputs) on the engine.
        max_new_tokens: None (the engine's), a scalar, one per prompt or one per row."""
        if not prompts or any(len(p) == 0 for p in prompts):
            raise ValueError("need at least one prompt, and no empty prompt")
        n, G, M = len(prompts), n_per_prompt, self.max_new_tokens
        key = jax.random.key(rng) if isinstance(rng, int) else rng
        ids = np.arange(n) if prompt_ids is None else np.asarray(prompt_ids)
        limits = _row_values(M if max_new_tokens is None else max_new_tokens, n, G, np.int32)
        temps, top_ps, top_ks = (_per_row(x, n, G, dt) for x, dt in
                                 ((temperature, np.float32), (top_p, np.float32), (top_k, np.int32)))
        rows = [Row(int(ids[i] * G + g), list(prompts[i]), int(limits[i * G + g]), float(temps[i * G + g]),
                    float(top_ps[i * G + g]), int(top_ks[i * G + g])) for i in range(n) for g in range(G)]
        self.run(model, rows, key, stop_ids=stop_ids)
        return rows_output(rows, M, self.pad_id, self.peak_cache_bytes, n_per_prompt=G)


def rows_output(rows: Sequence[Row], max_new_tokens: int, pad_id: int, peak_cache_bytes: int,
                n_per_prompt: int) -> SampleOutput:
    """Done rows (prompt-major, G per prompt) as a sampler.SampleOutput."""
    N = len(rows)
    tokens = np.full((N, max_new_tokens), pad_id, np.int32)
    logprobs = np.zeros((N, max_new_tokens), np.float32)
    for i, row in enumerate(rows):
        tokens[i, :len(row.tokens)] = row.tokens
        logprobs[i, :len(row.logprobs)] = row.logprobs
    lengths = np.array([len(r.tokens) for r in rows], np.int32)
    finished = np.array([r.finished for r in rows], bool)
    return SampleOutput(prompt_index=np.arange(N, dtype=np.int32) // n_per_prompt, tokens=tokens, logprobs=logprobs,
                        lengths=lengths, finished=finished,
                        truncated=~finished & (lengths == np.array([r.max_new_tokens for r in rows])),
                        peak_cache_bytes=int(peak_cache_bytes))


def _prefix_groups(rows: Sequence[Row]) -> list[list[Row]]:
    """Consecutive fresh rows of the same prompt share one prefill; a resumed row has its own."""
    groups: list[list[Row]] = []
    for row in rows:
        if groups and not row.tokens and not groups[-1][0].tokens and groups[-1][0].prompt == row.prompt:
            groups[-1].append(row)
        else:
            groups.append([row])
    return groups


def _row_values(value, n_prompts: int, group: int, dtype) -> np.ndarray:
    """A scalar, one value per prompt, or one per row -> one per row."""
    value = np.asarray(value, dtype)
    if value.shape == (n_prompts * group,) and group > 1:
        return value
    return _per_row(value, n_prompts, group, dtype)
