"""The update's building blocks, built in one place (`build_update`) for the learner and the memory planner: the
optimizer, the gradient accumulation of one micro-batch (any shape) into an f32 accumulator, and the update that
applies the accumulated sum.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from rlve_jax.runtime.trainable import merge_trainable, split_trainable
from rlve_jax.rl import losses
from rlve_jax.rl.batching import SequenceBatch, sequence_logprobs


@dataclasses.dataclass(frozen=True)
class OptimSettings:
    """The optim section: AdamW, global-norm clipping, a linear warm-up to a constant learning rate."""

    lr: float
    b1: float
    b2: float
    eps: float
    weight_decay: float
    grad_clip: float  # 0: no clipping
    warmup_steps: int  # 0: constant from the first update


def learning_rate(optim: OptimSettings) -> optax.Schedule:
    """The learning rate of the update that follows `count` updates: a linear warm-up to a constant, lr * k / W
    at the k-th of the W warm-up updates (the first update trains, at lr / W)."""
    if optim.warmup_steps:
        return optax.linear_schedule(optim.lr / optim.warmup_steps, optim.lr, optim.warmup_steps - 1)
    return optax.constant_schedule(optim.lr)


def make_optimizer(optim: OptimSettings) -> optax.GradientTransformation:
    """AdamW with global-norm clipping and a linear warm-up to a constant learning rate."""
    schedule = learning_rate(optim) if optim.warmup_steps else optim.lr  # a float keeps the state schedule-free
    return optax.chain(
        optax.clip_by_global_norm(optim.grad_clip) if optim.grad_clip > 0 else optax.identity(),
        optax.adamw(schedule, b1=optim.b1, b2=optim.b2, eps=optim.eps, weight_decay=optim.weight_decay),
    )


def optimizer_shardings(tx: optax.GradientTransformation, params, mesh):
    """The optimizer state of the trainable parameters (the LoRA adapters when there are, models/lora.py) placed
    like the parameters it mirrors (Adam's moments sharded as the parameters are, ZeRO-3), its scalars replicated.
    Left to itself, jit replicates all of it. `params` concrete or abstract (with shardings)."""
    params = split_trainable(params)[0]
    replicated = NamedSharding(mesh, P())
    return optax.tree_map_params(tx, lambda _, p: p.sharding, jax.eval_shape(tx.init, params), params,
                                 transform_non_params=lambda _: replicated)


def init_optimizer(tx: optax.GradientTransformation, params, mesh) -> optax.OptState:
    """The optimizer state of the trainable parameters, placed by optimizer_shardings."""
    return jax.jit(tx.init, out_shardings=optimizer_shardings(tx, params, mesh))(split_trainable(params)[0])


# ---------------------------------------------------------------------------
# The update: gradients accumulated over micro-batches of any shapes, then one optimiser step


class Accumulator(NamedTuple):
    """Sums over a step's micro-batches, divided once by the batch's denominator when applied."""

    loss: jax.Array  # f32 [], the aggregation's loss sum
    denominator: jax.Array  # f32 [], tokens (token-mean) or sequences (seq-mean-token-mean)
    tokens: jax.Array  # f32 [], response tokens
    metrics: dict  # f32 [] each, losses.policy_loss's metric sums
    grads: Any  # f32, the trainable parameters' tree (lora.split_trainable): gradients of the loss sums


def make_micro_loss(graphdef, rest, loss_config: losses.LossConfig, temperature: float,
                    logits_tokens: int | None = None):
    """(params, micro, old logprobs or None) -> (loss sum, (denominator, metric sums)) of one micro-batch
    (logits_tokens: see batching.sequence_logprobs). Old logprobs None: those of `params` (the first update
    on a rollout, where the policy that sampled is the one being trained)."""
    def micro_loss(params, micro: SequenceBatch, old_logprobs: jax.Array | None = None):
        model = nnx.merge(graphdef, params, rest)
        logp = sequence_logprobs(model, micro, temperature, logits_tokens)  # [b, T]
        old = jax.lax.stop_gradient(logp) if old_logprobs is None else old_logprobs
        loss_sum, denominator, metrics = losses.policy_loss(logp, old, micro.sampler_logprobs, micro.advantages,
                                                            micro.loss_mask, loss_config, micro_batch_key(micro))
        return loss_sum, (denominator, metrics)

    return micro_loss


def micro_batch_key(micro: SequenceBatch) -> jax.Array:
    """A PRNG key drawn from the micro-batch's tokens (entropy controls that pick tokens at random): the same
    batch gets the same picks, so runs and resumes stay reproducible."""
    return jax.random.fold_in(jax.random.key(0), jnp.sum(micro.tokens * (micro.positions + 1)))


def make_logprobs(graphdef, rest, temperature: float, logits_tokens: int | None = None):
    """jit (params, micro) -> the trainer's logprobs [b, T] of a micro-batch, without gradients: the "old"
    logprobs of the mini-batches after the first (train.steps_per_rollout > 1)."""
    def logprobs(params, micro: SequenceBatch) -> jax.Array:
        return sequence_logprobs(nnx.merge(graphdef, params, rest), micro, temperature, logits_tokens)

    return jax.jit(logprobs)


def zero_accumulator(micro_loss, params) -> Accumulator:
    """An all-zero Accumulator for `params` (its metric names traced from micro_loss on a dummy batch)."""
    metrics = jax.eval_shape(micro_loss, params, SequenceBatch.struct(1, 16))[1][1]
    scalar = lambda: jnp.zeros((), jnp.float32)  # noqa: E731
    return Accumulator(scalar(), scalar(), scalar(), {name: scalar() for name in metrics},
                       jax.tree.map(lambda p: jnp.zeros(p.shape, jnp.float32), split_trainable(params)[0]))


def accumulator_shardings(micro_loss, params, mesh) -> Accumulator:
    """Gradients placed like the parameters, scalars replicated."""
    shapes = jax.eval_shape(lambda: zero_accumulator(micro_loss, params))
    replicated = NamedSharding(mesh, P())
    return shapes._replace(loss=replicated, denominator=replicated, tokens=replicated,
                           metrics={name: replicated for name in shapes.metrics},
                           grads=shardings_of(split_trainable(params)[0]))


def logits_tokens(micro_batch_size: int, max_tokens_per_micro_batch: int, model_config) -> int | None:
    """Token-budget micro-batches hold at most the fixed layout's logits (micro_batch_size rows x the model's
    chunk) at once; the fixed layout keeps the model's chunk."""
    if not max_tokens_per_micro_batch:
        return None
    return micro_batch_size * model_config.logits_chunk


def make_accumulate(micro_loss, acc_shardings: Accumulator):
    """jit (params, acc, micro, old logprobs [b, T] or None) -> acc + the micro-batch's sums (old logprobs: see
    make_micro_loss); one compilation per micro-batch shape,
    the accumulator updated in place (donated); gradients of the trainable parameters only. Call (and lower) it
    under `jax.set_mesh(mesh)`, so that activations stay split over the batch (attention.batch_sharded) and FSDP
    gathers weights instead."""
    def trainable_loss(trainable, frozen, micro, old_logprobs):
        return micro_loss(merge_trainable(trainable, frozen), micro, old_logprobs)

    grad_fn = jax.value_and_grad(trainable_loss, has_aux=True)

    def accumulate(params, acc: Accumulator, micro: SequenceBatch,
                   old_logprobs: jax.Array | None = None) -> Accumulator:
        (loss, (denominator, metrics)), grads = grad_fn(*split_trainable(params), micro, old_logprobs)
        step = Accumulator(loss, denominator, jnp.sum(micro.loss_mask), metrics,
                           jax.tree.map(lambda g: g.astype(jnp.float32), grads))
        return jax.tree.map(jnp.add, acc, step)

    return jax.jit(accumulate, donate_argnums=(1,), out_shardings=acc_shardings)


def make_apply(tx: optax.GradientTransformation, params, opt_state, mesh, schedule: optax.Schedule):
    """jit (params, opt_state, acc) -> the optimiser step on acc.grads / acc.denominator (in the parameters'
    dtype) of the trainable parameters (the frozen pass through), new parameters and state placed as the old
    (donated), and the step's metrics."""
    def apply(params, opt_state, acc: Accumulator):
        trainable, frozen = split_trainable(params)
        denominator = jnp.maximum(acc.denominator, 1.0)
        grads = jax.tree.map(lambda g, p: (g / denominator).astype(p.dtype), acc.grads, trainable)
        grad_norm = optax.global_norm(grads)  # before clipping
        done = optax.tree_utils.tree_get_all_with_path(opt_state, "count")[0][1]  # Adam's update count
        updates, opt_state = tx.update(grads, opt_state, trainable)
        params = merge_trainable(optax.apply_updates(trainable, updates), frozen)
        return params, opt_state, {"loss": acc.loss / denominator, "grad_norm": grad_norm, "tokens": acc.tokens,
                                   "learning_rate": schedule(done), **acc.metrics}

    replicated = NamedSharding(mesh, P())
    return jax.jit(apply, donate_argnums=(0, 1),
                   out_shardings=(shardings_of(params), shardings_of(opt_state), replicated))


def shardings_of(tree):
    return jax.tree.map(lambda x: x.sharding, tree)


@dataclasses.dataclass(frozen=True)
class Update:
    """The update's jitted parts for one model, mesh and settings: the Learner runs them, the memory planner
    (rlve_jax/plan.py) compiles them on abstract arguments."""

    tx: optax.GradientTransformation
    opt_shardings: Any  # the optimizer state's (optimizer_shardings)
    acc_shardings: Accumulator
    zero_accumulator: Callable[[], Accumulator]  # jit
    accumulate: Callable  # make_accumulate's
    apply: Callable  # make_apply's
    old_logprobs: Callable  # make_logprobs's

    def init_opt_state(self, params) -> optax.OptState:
        """The optimizer state of `params`' trainable parameters, placed by opt_shardings."""
        return jax.jit(self.tx.init, out_shardings=self.opt_shardings)(split_trainable(params)[0])


def build_update(graphdef, rest, params, mesh, *, optim: OptimSettings, loss: losses.LossConfig, temperature: float,
                 logits_tokens: int | None) -> Update:
    """The one place the update's parts are built, from the model's (graphdef, params, rest) split, `params`
    concrete or abstract (with shardings), for the Learner and the planner alike."""
    params = jax.tree.map(lambda x: jax.ShapeDtypeStruct(x.shape, x.dtype, sharding=x.sharding), params)
    tx = make_optimizer(optim)
    micro_loss = make_micro_loss(graphdef, rest, loss, temperature, logits_tokens)
    acc_shardings = accumulator_shardings(micro_loss, params, mesh)
    opt_shardings = optimizer_shardings(tx, params, mesh)
    abstract_opt = jax.tree.map(lambda x, s: jax.ShapeDtypeStruct(x.shape, x.dtype, sharding=s),
                                jax.eval_shape(tx.init, split_trainable(params)[0]), opt_shardings)
    return Update(tx, opt_shardings, acc_shardings,
                  jax.jit(lambda: zero_accumulator(micro_loss, params), out_shardings=acc_shardings),
                  make_accumulate(micro_loss, acc_shardings),
                  make_apply(tx, params, abstract_opt, mesh, learning_rate(optim)),
                  make_logprobs(graphdef, rest, temperature, logits_tokens))


# ---------------------------------------------------------------------------
# Several optimizer steps per rollout (train.steps_per_rollout)


def mini_batches(groups: int, group_size: int, steps: int) -> list[np.ndarray]:
    """The step's kept groups (draw order) in `steps` contiguous mini-batches of whole groups, as the indices
    of their sequences [n_i] (group-major, as the kept sequences are numbered); empty ones are dropped."""
    sequences = np.arange(groups * group_size).reshape(groups, group_size)  # [groups, G]
    return [sequences[part].reshape(-1) for part in np.array_split(np.arange(groups), steps) if len(part)]


def train_metrics(steps: list[dict[str, jax.Array]]) -> dict[str, float]:
    """One rollout's train/ metrics from its optimizer steps' (make_apply's) metrics: loss and grad norm
    averaged over the steps, the last step's learning rate, the loss's metric sums per response token
    (clip_fraction_after_first: over the steps after the first, where the clip can act)."""
    tokens = max(sum(float(m["tokens"]) for m in steps), 1.0)
    result = {"train/loss": sum(float(m["loss"]) for m in steps) / len(steps),
              "train/grad_norm": sum(float(m["grad_norm"]) for m in steps) / len(steps),
              "train/learning_rate": float(steps[-1]["learning_rate"])}
    for name in steps[0]:
        if name not in ("loss", "grad_norm", "learning_rate", "tokens"):
            result[f"train/{name}"] = sum(float(m[name]) for m in steps) / tokens
    if len(steps) > 1:
        later = max(sum(float(m["tokens"]) for m in steps[1:]), 1.0)
        result["train/clip_fraction_after_first"] = sum(float(m["clip_fraction"]) for m in steps[1:]) / later
    return result
