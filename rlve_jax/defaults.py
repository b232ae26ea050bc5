"""The full configuration tree with the paper's defaults (rlve_reference.md section c).

Files in rlve_jax/configs/ (configs/ in a checkout) start from `base_config()` and change what differs; every key here is read
by the code, and `--config.a.b=value` overrides of unknown keys fail. `validate(config)` checks
every key against its domain (DOMAINS) before any model or pool work.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, NamedTuple

import ml_collections

from rlve_jax.gym.scheduler import ESTIMATING_KINDS
from rlve_jax.gym.scheduler import KINDS as SCHEDULER_KINDS
from rlve_jax.gym.scheduler import PAPER as PAPER_SCHEDULER

if TYPE_CHECKING:  # the settings' types (imported by `settings` itself, on first use)
    from rlve_jax.generation.generator import GeneratorSettings, SamplingSettings
    from rlve_jax.gym.pool import PoolSettings
    from rlve_jax.gym.scheduler import SchedulerSettings
    from rlve_jax.models.policy import ModelSettings, TokenizerSettings
    from rlve_jax.rl.collector import CollectorSettings
    from rlve_jax.rl.learner import LearnerSettings
    from rlve_jax.rl.warm_start import WarmStartSettings
    from rlve_jax.runtime.metrics import LogSettings
    from rlve_jax.runtime.sharding import MeshSettings

# The experiment configs ship inside the package (rlve_jax/configs/, also reachable as configs/ in a checkout):
# `defaults.experiment("c256")` and `import rlve_jax.configs.c256` work from any installed copy.
CONFIGS = Path(__file__).resolve().with_name("configs")


def base_config() -> ml_collections.ConfigDict:
    c = ml_collections.ConfigDict()
    c.mode = "train"  # "train" (RLVE) or "eval" (rlve_jax/evaluation/evaluate.py)
    c.seed = 0  # model init, problem draws and sampling all derive from it
    c.steps = 1000  # RL steps (the paper's runs are open-ended; ProRL-1.5B-v2 stopped at 740)

    c.model = ml_collections.ConfigDict()
    c.model.path = ""  # local HF checkpoint directory (config.json + *.safetensors); "" = random init
    c.model.preset = ""  # architecture preset for random init (e.g. "tiny"), used when path is ""
    c.model.dtype = "bfloat16"  # parameter and compute dtype on accelerators ("float32" on CPU)
    c.model.remat = True  # rematerialise each layer in the backward pass
    c.model.scan_layers = True  # scan over the layer stack (faster compiles) instead of a Python loop
    # Training/prefill attention (rlve_jax/models/attention.py): "auto" = cuDNN flash on GPU, Pallas splash on TPU,
    # memory-efficient blockwise elsewhere; or "reference" (XLA, [T, T] scores), "blockwise", "cudnn", "pallas_tpu".
    c.model.attention_impl = "auto"
    # The rollout engine's decode attention (rlve_jax/models/decode_attention.py): "auto" = the Pallas GPU decode
    # kernel on GPU, the Pallas TPU paged kernel on TPU (head_dim a multiple of 128), blockwise elsewhere; or by name.
    c.model.decode_attention = "auto"
    # LoRA (rlve_jax/models/lora.py, with qwix as Tunix): rank 0 trains every weight; rank r > 0 freezes the base
    # weights and trains A [in, r] and B [r, out] on each target projection (update scaled by alpha / r).
    c.model.lora = ml_collections.ConfigDict()
    c.model.lora.rank = 0
    c.model.lora.alpha = 16.0
    c.model.lora.targets = "q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj"  # comma-separated; here: all

    c.tokenizer = ml_collections.ConfigDict()
    c.tokenizer.path = ""  # "" = the model directory; "tiny" = build the small tokenizer of the tiny run
    # path "tiny" only (rlve_jax/models/tiny_tokenizer.py): the BPE's vocabulary size, and whether merges stop at
    # word boundaries (GPT-2's regex; the vocabulary then saturates near 500 tokens whatever size is asked).
    c.tokenizer.tiny_vocab_size = 1024
    c.tokenizer.tiny_word_split = False
    c.tokenizer.prompt_format = "chat"  # "chat" (model template, no system prompt, \boxed{}) | "tinyzero"
    # chat format only: append "Please reason step by step, and put your final answer within \boxed{}." to
    # the problem. The original sends the problem alone (False reproduces its prompt exactly); the environment
    # prompts never name the marker, so without the sentence a model boxes its answer only out of habit.
    c.tokenizer.boxed_instruction = True

    c.env = ml_collections.ConfigDict()
    c.env.collection = "C16"  # a collection (C1, C4, C16, C256, C400) or comma-separated identifiers
    c.env.workers = 8  # verifier/generator worker processes; 0 = in-process (debugging: no memory limit)
    c.env.timeout_s = 10.0  # per-item wall-clock limit (the original used 10 s)
    c.env.memory_limit_mb = 4096  # per-worker address-space limit; 0 = none
    c.env.reward_key = "reward"  # "reward" (shaped, in [-1, 1]) or "accuracy" (binary)
    # Stop the run when more than this share of a step's generations or of its verifications fail
    # (timeouts, worker crashes, exceptions escaping environment code); 1.0 = never stop.
    c.env.max_failure_share = 0.5

    c.rollout = ml_collections.ConfigDict()
    c.rollout.prompts_per_step = 128  # groups kept per optimiser step
    c.rollout.samples_per_prompt = 16  # G
    c.rollout.oversample_prompts = 384  # prompts drawn per generation round (dynamic sampling)
    c.rollout.max_rounds = 8  # give up filling the batch after this many rounds (train on what is kept)
    # Dynamic sampling: which groups a step keeps (rlve_jax/rl/filters.py; docs/algorithms.md). "informative"
    # (DAPO's, the paper's): groups whose rewards are not all equal; "all": every group.
    c.rollout.group_filter = "informative"
    c.rollout.max_prompt_tokens = 2048  # longer prompts are skipped (and counted); 0 = no limit
    c.rollout.max_response_tokens = 24576
    c.rollout.temperature = 1.0
    c.rollout.top_p = 1.0
    c.rollout.top_k = -1  # -1 = off
    # "continuous" (rlve_jax/generation/engine.py: decode slots refilled as rows finish, attention over live lengths) or
    # "static" (sampler.generate: chunks decoded until their longest row stops). Same tokens for the same keys.
    c.rollout.engine = "continuous"
    # continuous: decode steps per jitted segment (finished rows are replaced between); partial rollouts: a round's
    # first decoding phase, in tokens per row (each later phase decodes as many again as all before it)
    c.rollout.segment_steps = 16
    # Partial rollouts (continuous engine): rows decode as if one token per row at a time; at the length where the
    # round's completed groups (every process's) fill the step's batch, decoding stops and the unfinished groups
    # are carried into the next step by the process that holds them (tokens, sampler logprobs and each token's
    # policy version kept; TIS corrects with those logprobs); every process's are in the checkpoint.
    c.rollout.partial_rollouts = True
    # KV-cache tokens held at once (continuous: slots + one prefill batch; static: per chunk). 0 = continuous:
    # the sampler devices' free memory after parameters and optimizer state (CPU: 1 GiB); static: one chunk.
    c.rollout.cache_budget_tokens = 0
    # Dynamic sampling's budget steered by the scheduler's estimate (scheduler.kind learnability or thompson): each
    # round draws only as many problems as it expects to fill the batch with informative groups, at most
    # oversample_prompts. False: every round draws oversample_prompts (the paper's plain budget).
    c.rollout.steered_oversampling = False

    # The paper's values (and the other curricula's defaults) are the gym's (rlve_jax/gym/scheduler SchedulerSettings).
    c.scheduler = ml_collections.ConfigDict()
    # The curriculum (rlve_jax/gym/scheduler, README "Curricula"): "adaptive" (RLVE), "static" (the paper's
    # baseline), "learnability" (levels in proportion to p(1 - p)), "thompson" (Thompson sampling on informative groups)
    c.scheduler.kind = PAPER_SCHEDULER.kind
    c.scheduler.initial_difficulty = PAPER_SCHEDULER.initial_difficulty
    c.scheduler.window = PAPER_SCHEDULER.window  # levels drawn from [max(0, h - window + 1), h]
    c.scheduler.promote_threshold = PAPER_SCHEDULER.promote_threshold  # accuracy at level h needed to move h up
    # check once min_prompts * samples_per_prompt rollouts at h were seen
    c.scheduler.min_prompts = PAPER_SCHEDULER.min_samples // c.rollout.samples_per_prompt
    c.scheduler.static_lo = PAPER_SCHEDULER.static_lo  # the static baseline's level range
    c.scheduler.static_hi = PAPER_SCHEDULER.static_hi
    # learnability and thompson (rlve_jax/gym/scheduler/cells.py): the environment uniform, the level chosen among
    # its cells, levels 0..min(top level, max_level), from evidence decayed per step and a prior at even odds
    c.scheduler.max_level = PAPER_SCHEDULER.max_level
    c.scheduler.decay = PAPER_SCHEDULER.decay  # evidence kept per step: about 1 / (1 - decay) steps' worth
    c.scheduler.prior_count = PAPER_SCHEDULER.prior_count  # pseudo-observations at even odds per cell
    c.scheduler.explore = PAPER_SCHEDULER.explore  # learnability: the share of draws spread evenly over the cells

    # The RL algorithm's named parts (docs/algorithms.md: each name, its paper, its keys); the defaults are the
    # paper's: GRPO advantages, DAPO's token-level clip-higher loss averaged per sequence, token-level TIS.
    c.loss = ml_collections.ConfigDict()
    c.loss.name = "dapo"  # policy loss (rlve_jax/rl/losses.py): "dapo" (token ratio) | "gspo" (sequence) | "cispo"
    c.loss.advantage = "grpo"  # rlve_jax/rl/advantages.py: "grpo" (group mean and std) | "dr_grpo" | "rloo"
    # "seq-mean-token-mean" (the original scripts) | "token-mean" (DAPO's) | "seq-mean-token-sum-norm" (Dr. GRPO's)
    c.loss.aggregation = "seq-mean-token-mean"
    c.loss.clip_low = 0.2  # ratio clip [1 - clip_low, 1 + clip_high] (GSPO's paper: 3e-4 and 4e-4)
    c.loss.clip_high = 0.28
    c.loss.shaping = "none"  # reward shaping (rlve_jax/rl/shaping.py): "none" (as the paper) | "overlong" (DAPO)
    c.loss.overlong_buffer = 4096  # "overlong": penalty over the last N tokens of rollout.max_response_tokens
    # Train/sampler mismatch correction (rlve_jax/rl/mismatch.py): "token_tis" (the paper's) | "seq_tis" |
    # "token_mask" | "seq_mask" | "none"; TIS weights are capped at tis_clip, masking keeps ratios in [low, high].
    c.loss.mismatch = "token_tis"
    c.loss.tis_clip = 2.0
    c.loss.mismatch_low = 0.5
    c.loss.mismatch_high = 2.0
    # Entropy control (rlve_jax/rl/entropy.py; Cui et al. 2025): "none" (as the paper) | "clip_cov" | "kl_cov".
    c.loss.entropy_control = "none"
    c.loss.clip_cov_fraction = 2e-4  # clip_cov: share of response tokens detached, among cov in (low, high)
    c.loss.clip_cov_low = 1.0
    c.loss.clip_cov_high = 5.0
    c.loss.kl_cov_fraction = 2e-3  # kl_cov: share of response tokens (largest cov) penalised
    c.loss.kl_cov_coef = 1.0

    c.optim = ml_collections.ConfigDict()
    c.optim.lr = 2e-6
    c.optim.b1 = 0.9
    c.optim.b2 = 0.98
    c.optim.eps = 1e-8
    c.optim.weight_decay = 0.01
    c.optim.grad_clip = 1.0
    c.optim.warmup_steps = 0  # linear warm-up, then constant

    c.train = ml_collections.ConfigDict()
    c.train.micro_batch_size = 16  # sequences per forward/backward; gradients accumulate exactly
    # Optimizer steps per rollout batch (mu): the kept groups split into this many mini-batches, one step each;
    # the loss's "old" logprobs are the sampling policy's, computed before the first step (1 = the paper's).
    c.train.steps_per_rollout = 1
    # > 0: micro-batches of length-sorted sequences holding up to this many tokens (rows x padded length),
    # lengths bucketed finely (padding <= ~10%); 0 = micro_batch_size rows padded to the batch's longest.
    c.train.max_tokens_per_micro_batch = 0
    # With mesh.rollout_devices > 0 (one-step-off-policy, rlve_jax/rl/async_collector.py): how many updates the
    # rollout weights lag the learner's. 1: step k+1's rollouts are generated with the weights before update k,
    # while update k runs; 0: after it (no overlap: the synchronous schedule on the two sub-meshes).
    c.train.max_staleness = 1

    c.warm_start = ml_collections.ConfigDict()  # supervised warm-up on reference answers (tiny run)
    c.warm_start.steps = 0
    c.warm_start.batch_size = 32
    c.warm_start.lr = 1e-3
    c.warm_start.max_difficulty = 0  # problems drawn from levels 0..max_difficulty

    c.mesh = ml_collections.ConfigDict()  # the training mesh over every process's devices (presets: configs/mesh/)
    c.mesh.data = 1
    c.mesh.fsdp = -1  # -1 = all remaining devices
    c.mesh.tensor = 1  # must divide each process's device count
    c.mesh.sampler_tensor = 0  # tensor-parallel size of each process's sampler mesh; 0 = mesh.tensor
    # > 0: each process's last N devices generate its rollouts (a sampler mesh of their own) and every process's
    # others train (data x fsdp x tensor of them), and step k+1's rollouts are generated while update k runs
    # (train.max_staleness; README "One-step-off-policy training"). 0 = every device does both, in turn.
    c.mesh.rollout_devices = 0
    # Memory per device (GB) the planner (rlve_jax/plan.py) and the trainer's start-up check hold a config
    # to; 0 = the device's own (memory_stats) where known, else no limit.
    c.mesh.device_memory_gb = 0.0

    # Multi-host runs: every host runs the same command (README "Scaling out"). 1 = a single process;
    # 0 = detected by jax.distributed (TPU VMs, SLURM, Open MPI); N = set explicitly with the two below.
    c.distributed = ml_collections.ConfigDict()
    c.distributed.num_processes = 1
    c.distributed.coordinator_address = ""  # "host:port" of process 0; "" = detected
    c.distributed.process_id = -1  # this process's index; -1 = detected
    # Prepended to XLA_FLAGS before the backend starts (a user's XLA_FLAGS still win). GPU compiler
    # flags for FSDP on H100 nodes; the CPU and TPU compilers ignore them.
    # JAX's persistent compilation cache: a directory where compiled programs are kept across runs (the engine's
    # first call on the tiny shape: 209 s cold, 65 s warm on CPU); "" = off.
    c.compilation_cache_dir = ""
    c.xla_flags = " ".join([
        "--xla_gpu_enable_latency_hiding_scheduler=true",  # overlap the fsdp collectives with compute
        "--xla_gpu_enable_pipelined_all_gather=true",  # scanned layers: gather layer i+1 during layer i
        "--xla_gpu_enable_pipelined_reduce_scatter=true",  # ... and scatter layer i's gradients during i-1
        "--xla_gpu_enable_pipelined_all_reduce=true",
        "--xla_gpu_all_gather_combine_threshold_bytes=134217728",  # fewer, larger NCCL calls (128 MiB)
        "--xla_gpu_reduce_scatter_combine_threshold_bytes=134217728",
        "--xla_gpu_all_reduce_combine_threshold_bytes=134217728",
    ])

    c.checkpoint = ml_collections.ConfigDict()
    c.checkpoint.every = 1  # steps between saves (the original saved every step)
    c.checkpoint.keep = 3

    c.eval = ml_collections.ConfigDict()
    c.eval.every = 20  # in-training held-out evaluation period in steps; 0 = off
    c.eval.problems = 128  # held-out: a fixed subset (<= 0: all 2 500); benchmarks: the first N (<= 0: all)
    c.eval.temperature = 1.0  # the original's in-training eval: temperature 1.0, top-p 0.7
    c.eval.top_p = 0.7
    c.eval.max_response_tokens = 0  # 0 = rollout.max_response_tokens
    # Standalone evaluation (mode "eval", configs/eval_*.py):
    c.eval.suite = "heldout"  # "heldout", "benchmarks" or "code" (LiveCodeBench only)
    c.eval.benchmarks = "aime24,aime25,omega500,olympiadbench,bbeh"  # add "livecodebench" for the code suite
    c.eval.samples = 0  # responses per problem; 0 = 1 for heldout, 16 for code, the benchmark's k (Avg@k) otherwise
    # The code suite (rlve_jax/evaluation/code_eval.py): LiveCodeBench's released JSONL, programs run in
    # rlve_jax/evaluation/sandbox.py.
    c.eval.code_path = ""  # a test*.jsonl file or the directory holding them (downloaded beforehand)
    c.eval.code_start_date = ""  # keep problems with contest_date in [start, end] (YYYY-MM-DD; "" = open)
    c.eval.code_end_date = ""
    c.eval.sandbox = "namespaces"  # "namespaces" (refuses to run where unavailable) or "none" (no isolation)
    c.eval.code_timeout_s = 6.0  # per test, as LiveCodeBench; a program gets (t + 1) * tests + 5 s in all
    c.eval.code_memory_mb = 2048  # address-space limit of each process of a program
    c.eval.code_workers = 0  # sandboxed programs in flight; 0 = one per CPU core
    c.eval.checkpoint = ""  # a training workdir: evaluate its latest checkpoint's parameters
    c.eval.batch_prompts = 64  # prompts per sampler call

    c.log = ml_collections.ConfigDict()
    c.log.tensorboard = True
    c.log.progress = True  # tqdm bar
    # Weights & Biases (pip install 'rlve_jax[wandb]'; WANDB_MODE=offline writes local files, no account):
    # the TensorBoard scalars and this config, in one W&B run per workdir (continued on resume).
    c.log.wandb = False
    c.log.wandb_project = "rlve_jax"
    c.log.wandb_name = ""  # "" = the workdir's name
    c.log.wandb_tags = ""  # comma-separated
    return c


# ---------------------------------------------------------------------------
# The config tree as the components' frozen settings: the config stops here (and in main, the builder, the planner
# and evaluation/evaluate.run); every component takes its settings.


@dataclasses.dataclass(frozen=True)
class Settings:
    """A validated config's sections as the settings each component takes."""

    seed: int  # model init, problem draws and sampling all derive from it
    steps: int
    model: ModelSettings
    tokenizer: TokenizerSettings
    mesh: MeshSettings
    pool: PoolSettings
    scheduler: SchedulerSettings
    collector: CollectorSettings
    learner: LearnerSettings
    generator: GeneratorSettings
    max_staleness: int  # one-step-off-policy's lag (mesh.rollout_devices > 0)
    warm_start: WarmStartSettings
    eval_sampling: SamplingSettings  # the eval section's, one response per problem (suites replace `samples`)
    log: LogSettings


def section(cls, values, **fields):
    """The frozen settings `cls` (a dataclass or NamedTuple) from a config section (or its dict): each field the
    key of its name, unless `fields` gives it."""
    names = cls._fields if hasattr(cls, "_fields") else [f.name for f in dataclasses.fields(cls)]
    return cls(**{name: fields[name] if name in fields else values[name] for name in names})


def settings(config: ml_collections.ConfigDict) -> Settings:
    """The settings of a validated config (the component types are imported here, on first use: loading a config
    stays JAX-free)."""
    from rlve_jax.generation.generator import GeneratorSettings, SamplingSettings
    from rlve_jax.gym.pool import PoolSettings
    from rlve_jax.gym.scheduler import SchedulerSettings
    from rlve_jax.models.lora import LoraConfig
    from rlve_jax.models.policy import ModelSettings, TokenizerSettings
    from rlve_jax.rl.collector import CollectorSettings
    from rlve_jax.rl.entropy import EntropyConfig
    from rlve_jax.rl.learner import LearnerSettings
    from rlve_jax.rl.losses import LossConfig
    from rlve_jax.rl.shaping import ShapingConfig
    from rlve_jax.rl.train_step import OptimSettings
    from rlve_jax.rl.warm_start import WarmStartSettings
    from rlve_jax.runtime.metrics import LogSettings
    from rlve_jax.runtime.sharding import MeshSettings

    r, env = config.rollout, config.env
    sampling = SamplingSettings(r.samples_per_prompt, r.max_response_tokens, r.temperature, r.top_p, r.top_k,
                                r.max_prompt_tokens, r.cache_budget_tokens or None)
    # Evaluation: the eval section's temperature, top-p and length (0: the rollout's), every prompt kept, the
    # rollout's KV budget; one response per problem until a suite sets its own.
    eval_sampling = SamplingSettings(1, config.eval.max_response_tokens or r.max_response_tokens,
                                     config.eval.temperature, config.eval.top_p,
                                     cache_budget_tokens=r.cache_budget_tokens or None)
    loss = section(LossConfig, config.loss, entropy=section(EntropyConfig, config.loss),
                   max_response_tokens=r.max_response_tokens)
    learner = section(LearnerSettings, config.train, optim=section(OptimSettings, config.optim), loss=loss,
                      advantage=config.loss.advantage, shaping=config.loss.shaping,
                      shaping_config=ShapingConfig(r.max_response_tokens, config.loss.overlong_buffer),
                      reward_key=env.reward_key, group_size=r.samples_per_prompt,
                      prompts_per_step=r.prompts_per_step, temperature=r.temperature)
    collector = section(CollectorSettings, r, sampling=sampling, reward_key=env.reward_key,
                        max_failure_share=env.max_failure_share, seed=config.seed)
    scheduler = section(SchedulerSettings, config.scheduler, min_samples=config.scheduler.min_prompts
                        * r.samples_per_prompt, seed=config.seed)
    model = section(ModelSettings, config.model, lora=LoraConfig.of(**config.model.lora))
    return Settings(config.seed, config.steps, model, section(TokenizerSettings, config.tokenizer),
                    section(MeshSettings, config.mesh), section(PoolSettings, env), scheduler, collector, learner,
                    section(GeneratorSettings, r), config.train.max_staleness,
                    section(WarmStartSettings, config.warm_start), eval_sampling,
                    section(LogSettings, config.log))


def load_config_file(path: str | Path, *args: str) -> ml_collections.ConfigDict:
    """`get_config(*args)` of a config file (what --config=path:arg gives absl)."""
    spec = importlib.util.spec_from_file_location(f"_config_{Path(path).stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.get_config(*args)


def experiment(name: str) -> ml_collections.ConfigDict:
    """The config of configs/<name>.py; a mesh preset starts from one (--config=configs/mesh/gpu8.py:c256)."""
    return load_config_file(CONFIGS / f"{name}.py")


# ---------------------------------------------------------------------------
# Validation: a domain for every key


class ConfigError(ValueError):
    """A config value outside its key's domain (the message is one line naming every bad key)."""


class Domain(NamedTuple):
    accepts: Callable[[Any], bool]
    describe: str  # what a good value is, for the error message


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return (isinstance(v, (int, float)) and not isinstance(v, bool)) and math.isfinite(v)


def integer(lo: int | None = None, hi: int | None = None, also: tuple[int, ...] = ()) -> Domain:
    text = ("an int" + (f" >= {lo}" if lo is not None else "") + (f" <= {hi}" if hi is not None else "")
            + "".join(f" or {a}" for a in also))
    return Domain(lambda v: _is_int(v) and (v in also or ((lo is None or v >= lo) and (hi is None or v <= hi))),
                  text)


def number(lo: float | None = None, hi: float | None = None, lo_open: bool = False, hi_open: bool = False) -> Domain:
    parts = [f"{'>' if lo_open else '>='} {lo:g}" if lo is not None else "",
             f"{'<' if hi_open else '<='} {hi:g}" if hi is not None else ""]

    def accepts(v: Any) -> bool:
        if not _is_number(v):
            return False
        if lo is not None and (v <= lo if lo_open else v < lo):
            return False
        return hi is None or (v < hi if hi_open else v <= hi)

    return Domain(accepts, " ".join(["a finite number", " and ".join(p for p in parts if p)]).strip())


def choice(*values: str) -> Domain:
    return Domain(lambda v: v in values, "one of " + ", ".join(repr(x) for x in values))


def registered(module: str, name: str) -> Domain:
    """A name in one of the project's registries or name tuples (the module imported on first use: this module
    stays JAX-free)."""
    def names() -> tuple[str, ...]:
        found = importlib.import_module(module).__dict__[name]
        return tuple(found.names() if hasattr(found, "names") else found)

    return Domain(lambda v: v in names(), LazyText(lambda: "one of " + ", ".join(repr(n) for n in names())))


class LazyText(str):
    """A Domain description computed when a message is written."""

    def __new__(cls, make: Callable[[], str]):
        text = super().__new__(cls, "a registered name")
        text.make = make
        return text

    def __str__(self) -> str:
        return self.make()

    def __format__(self, spec: str) -> str:
        return format(self.make(), spec)


BOOL = Domain(lambda v: isinstance(v, bool), "True or False")
TEXT = Domain(lambda v: isinstance(v, str), "a string")
def _lora_targets() -> tuple[str, ...]:
    return tuple(importlib.import_module("rlve_jax.models.lora").PROJECTIONS)


LORA_TARGET_LIST = Domain(
    lambda v: isinstance(v, str) and bool(v.strip()) and {t.strip() for t in v.split(",")} <= set(_lora_targets()),
    LazyText(lambda: "a comma-separated list of " + ", ".join(_lora_targets())))
NON_EMPTY = Domain(lambda v: isinstance(v, str) and bool(v.strip()), "a non-empty string")
PROBABILITY = number(0.0, 1.0, lo_open=True)  # (0, 1]

DOMAINS: dict[str, Domain] = {
    "mode": choice("train", "eval"),
    "seed": integer(0),
    "steps": integer(0),
    "model.path": TEXT, "model.preset": TEXT, "model.dtype": choice("float32", "bfloat16", "float16"),
    "model.remat": BOOL, "model.scan_layers": BOOL,
    "model.attention_impl": choice("auto", "reference", "blockwise", "cudnn", "pallas_tpu"),
    "model.decode_attention": choice("auto", "blockwise", "pallas_gpu", "pallas_tpu"),
    "model.lora.rank": integer(0), "model.lora.alpha": number(0.0, lo_open=True),
    "model.lora.targets": LORA_TARGET_LIST,
    "tokenizer.path": TEXT, "tokenizer.prompt_format": choice("chat", "tinyzero"),
    "tokenizer.tiny_vocab_size": integer(300), "tokenizer.tiny_word_split": BOOL,
    "tokenizer.boxed_instruction": BOOL,
    "env.collection": NON_EMPTY, "env.workers": integer(0), "env.timeout_s": number(0.0, lo_open=True),
    "env.memory_limit_mb": integer(512, also=(0,)), "env.reward_key": choice("reward", "accuracy"),
    "env.max_failure_share": number(0.0, 1.0),
    "scheduler.kind": choice(*SCHEDULER_KINDS), "scheduler.initial_difficulty": integer(0),
    "scheduler.window": integer(1), "scheduler.promote_threshold": PROBABILITY, "scheduler.min_prompts": integer(1),
    "scheduler.static_lo": integer(0), "scheduler.static_hi": integer(0),
    "scheduler.max_level": integer(0), "scheduler.decay": PROBABILITY,
    "scheduler.prior_count": number(0.0, lo_open=True), "scheduler.explore": number(0.0, 1.0, hi_open=True),
    "rollout.prompts_per_step": integer(1), "rollout.samples_per_prompt": integer(1),
    "rollout.oversample_prompts": integer(1), "rollout.max_rounds": integer(1),
    "rollout.group_filter": registered("rlve_jax.rl.filters", "GROUP_FILTERS"),
    "rollout.max_prompt_tokens": integer(0), "rollout.max_response_tokens": integer(1),
    "rollout.temperature": number(0.0), "rollout.top_p": PROBABILITY, "rollout.top_k": integer(1, also=(-1,)),
    "rollout.cache_budget_tokens": integer(0),
    "rollout.engine": registered("rlve_jax.generation.generator", "ENGINES"),
    "rollout.segment_steps": integer(1), "rollout.partial_rollouts": BOOL, "rollout.steered_oversampling": BOOL,
    "loss.name": registered("rlve_jax.rl.losses", "POLICY_LOSSES"),
    "loss.advantage": registered("rlve_jax.rl.advantages", "ADVANTAGES"),
    "loss.aggregation": registered("rlve_jax.rl.losses", "AGGREGATIONS"),
    "loss.clip_low": number(0.0, 1.0, hi_open=True), "loss.clip_high": number(0.0),
    "loss.shaping": registered("rlve_jax.rl.shaping", "SHAPING"), "loss.overlong_buffer": integer(1),
    "loss.mismatch": registered("rlve_jax.rl.mismatch", "MISMATCH"), "loss.tis_clip": number(0.0, lo_open=True),
    "loss.mismatch_low": number(0.0, 1.0, lo_open=True), "loss.mismatch_high": number(1.0),
    "loss.entropy_control": registered("rlve_jax.rl.entropy", "ENTROPY_CONTROLS"),
    "loss.clip_cov_fraction": PROBABILITY, "loss.clip_cov_low": number(), "loss.clip_cov_high": number(),
    "loss.kl_cov_fraction": PROBABILITY, "loss.kl_cov_coef": number(0.0),
    "optim.lr": number(0.0, lo_open=True), "optim.b1": number(0.0, 1.0, hi_open=True),
    "optim.b2": number(0.0, 1.0, hi_open=True), "optim.eps": number(0.0, lo_open=True),
    "optim.weight_decay": number(0.0), "optim.grad_clip": number(0.0), "optim.warmup_steps": integer(0),
    "train.micro_batch_size": integer(1), "train.max_tokens_per_micro_batch": integer(0),
    "train.steps_per_rollout": integer(1), "train.max_staleness": integer(0, 1),
    "warm_start.steps": integer(0), "warm_start.batch_size": integer(1), "warm_start.lr": number(0.0, lo_open=True),
    "warm_start.max_difficulty": integer(0),
    "mesh.data": integer(1, also=(-1,)), "mesh.fsdp": integer(1, also=(-1,)), "mesh.tensor": integer(1, also=(-1,)),
    "mesh.sampler_tensor": integer(0), "mesh.device_memory_gb": number(0.0), "mesh.rollout_devices": integer(0),
    "distributed.num_processes": integer(0), "distributed.coordinator_address": TEXT,
    "distributed.process_id": integer(-1),
    "xla_flags": TEXT, "compilation_cache_dir": TEXT,
    "checkpoint.every": integer(1), "checkpoint.keep": integer(1),
    "eval.every": integer(0), "eval.problems": integer(), "eval.temperature": number(0.0), "eval.top_p": PROBABILITY,
    "eval.max_response_tokens": integer(0), "eval.suite": choice("heldout", "benchmarks", "code"), "eval.benchmarks": TEXT,
    "eval.samples": integer(0), "eval.checkpoint": TEXT, "eval.batch_prompts": integer(1),
    "eval.code_path": TEXT, "eval.code_start_date": TEXT, "eval.code_end_date": TEXT,
    "eval.sandbox": choice("namespaces", "none"), "eval.code_timeout_s": number(0.0, lo_open=True),
    "eval.code_memory_mb": integer(64), "eval.code_workers": integer(0),
    "log.tensorboard": BOOL, "log.progress": BOOL, "log.wandb": BOOL, "log.wandb_project": TEXT,
    "log.wandb_name": TEXT, "log.wandb_tags": TEXT,
}


def _leaves(config: ml_collections.ConfigDict, prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in config.items():
        if isinstance(value, ml_collections.ConfigDict):
            out.update(_leaves(value, f"{prefix}{name}."))
        else:
            out[prefix + name] = value
    return out


def _relations(c: ml_collections.ConfigDict) -> list[str]:
    """Checks that tie keys together (only run once every key is in its domain)."""
    problems = []
    if c.rollout.samples_per_prompt < 2 and c.rollout.group_filter == "informative":
        problems.append("rollout.group_filter='informative' (dynamic sampling) needs "
                        "rollout.samples_per_prompt >= 2")
    mu = c.train.steps_per_rollout
    if c.rollout.prompts_per_step % mu:
        problems.append(f"train.steps_per_rollout={mu} must divide "
                        f"rollout.prompts_per_step={c.rollout.prompts_per_step} (each optimizer step takes as many "
                        "groups)")
    rows = c.rollout.prompts_per_step * c.rollout.samples_per_prompt // mu
    if rows % c.train.micro_batch_size:
        problems.append(f"train.micro_batch_size={c.train.micro_batch_size} must divide the batch of {rows} "
                        "sequences of an optimizer step (prompts_per_step x samples_per_prompt / "
                        "train.steps_per_rollout)")
    if c.scheduler.static_lo > c.scheduler.static_hi:
        problems.append(f"scheduler.static_lo={c.scheduler.static_lo} must be <= "
                        f"scheduler.static_hi={c.scheduler.static_hi}")
    if c.rollout.steered_oversampling and (c.scheduler.kind not in ESTIMATING_KINDS
                                           or c.rollout.group_filter != "informative"):
        problems.append(f"rollout.steered_oversampling=True needs a scheduler that estimates informative groups, "
                        f"scheduler.kind in {ESTIMATING_KINDS} (got {c.scheduler.kind!r}), and "
                        f"rollout.group_filter='informative' (got {c.rollout.group_filter!r})")
    if c.loss.shaping == "overlong" and c.loss.overlong_buffer >= c.rollout.max_response_tokens:
        problems.append(f"loss.overlong_buffer={c.loss.overlong_buffer} must be below "
                        f"rollout.max_response_tokens={c.rollout.max_response_tokens} (loss.shaping='overlong')")
    if c.rollout.partial_rollouts and c.rollout.engine != "continuous":
        problems.append("rollout.partial_rollouts=True needs rollout.engine='continuous'")
    if c.loss.entropy_control == "clip_cov" and c.loss.clip_cov_low >= c.loss.clip_cov_high:
        problems.append(f"loss.clip_cov_low={c.loss.clip_cov_low:g} must be below "
                        f"loss.clip_cov_high={c.loss.clip_cov_high:g}")
    if [c.mesh.data, c.mesh.fsdp, c.mesh.tensor].count(-1) > 1:
        problems.append("at most one of mesh.data, mesh.fsdp, mesh.tensor may be -1 (the remaining devices)")
    return problems or _environment_problems(c)


def _environment_problems(c: ml_collections.ConfigDict) -> list[str]:
    """env.collection names implemented environments; the warm start's levels exist in each of them."""
    from rlve_jax.gym import registry

    names = registry.resolve(c.env.collection)
    missing = [n for n in names if not registry.is_implemented(n)]
    if missing:
        unknown = [n for n in missing if n not in registry.catalog()]
        return [f"env.collection={c.env.collection!r}: {len(missing)} environments are not implemented: {missing}"
                + (f" ({len(unknown)} unknown identifiers: {unknown})" if unknown else "")]
    if c.mode == "train" and c.warm_start.steps:
        low = [(n, top) for n, top in ((n, registry.make(n).max_difficulty) for n in names)
               if top is not None and top < c.warm_start.max_difficulty]
        if low:
            return [f"warm_start.max_difficulty={c.warm_start.max_difficulty} is above the top level of "
                    + ", ".join(f"{n} ({top})" for n, top in low)]
    return []


def validate(config: ml_collections.ConfigDict) -> None:
    """Raise ConfigError, one line naming every bad key and what to pass, for a config that cannot work.

    Runs before any model, device or pool work (main and the trainer call it). Keys missing from
    DOMAINS are not checked here; tests/test_reliability.py requires a domain for every key.
    """
    leaves = _leaves(config)
    problems = [f"{key}={leaves[key]!r} must be {domain.describe}" for key, domain in DOMAINS.items()
                if key in leaves and not domain.accepts(leaves[key])]
    if not problems:
        problems = _relations(config)
    if problems:
        raise ConfigError("bad config: " + "; ".join(problems))
