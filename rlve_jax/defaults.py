"""The full configuration tree with the paper's defaults (rlve_reference.md section c).

Files in configs/ start from `base_config()` and change what differs; every key here is read
by the code, and `--config.a.b=value` overrides of unknown keys fail.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import ml_collections

CONFIGS = Path(__file__).resolve().parents[1] / "configs"


def base_config() -> ml_collections.ConfigDict:
    c = ml_collections.ConfigDict()
    c.mode = "train"  # "train" (RLVE) or "eval" (rlve_jax/evaluate.py)
    c.seed = 0  # model init, problem draws and sampling all derive from it
    c.steps = 1000  # RL steps (the paper's runs are open-ended; ProRL-1.5B-v2 stopped at 740)

    c.model = ml_collections.ConfigDict()
    c.model.path = ""  # local HF checkpoint directory (config.json + *.safetensors); "" = random init
    c.model.preset = ""  # architecture preset for random init (e.g. "tiny"), used when path is ""
    c.model.dtype = "bfloat16"  # parameter and compute dtype on accelerators ("float32" on CPU)
    c.model.remat = True  # rematerialise each layer in the backward pass
    c.model.scan_layers = True  # scan over the layer stack (faster compiles) instead of a Python loop
    # Training/prefill attention (rlve_jax/attention.py): "auto" = cuDNN flash on GPU, Pallas splash on TPU,
    # memory-efficient blockwise elsewhere; or "reference" (XLA, [T, T] scores), "blockwise", "cudnn", "pallas_tpu".
    c.model.attention_impl = "auto"

    c.tokenizer = ml_collections.ConfigDict()
    c.tokenizer.path = ""  # "" = the model directory; "tiny" = build the small tokenizer of the tiny run
    c.tokenizer.prompt_format = "chat"  # "chat" (model template, no system prompt, \boxed{}) | "tinyzero"
    # chat format only: append "Please reason step by step, and put your final answer within \boxed{}." to
    # the problem. The original sends the problem alone (False reproduces its prompt exactly); the environment
    # prompts never name the marker, so without the sentence a model boxes its answer only out of habit.
    c.tokenizer.boxed_instruction = True

    c.env = ml_collections.ConfigDict()
    c.env.collection = "C16"  # a collection (C1, C4, C16, C256, C400) or comma-separated identifiers
    c.env.workers = 8  # verifier/generator worker processes
    c.env.timeout_s = 10.0  # per-item wall-clock limit (the original used 10 s)
    c.env.memory_limit_mb = 4096  # per-worker address-space limit
    c.env.reward_key = "reward"  # "reward" (shaped, in [-1, 1]) or "accuracy" (binary)

    c.scheduler = ml_collections.ConfigDict()
    c.scheduler.kind = "adaptive"  # "adaptive" (RLVE) or "static" (the paper's baseline)
    c.scheduler.initial_difficulty = 0
    c.scheduler.window = 4  # levels drawn from [max(0, h - window + 1), h]
    c.scheduler.promote_threshold = 0.9  # accuracy at level h needed to move h up
    c.scheduler.min_prompts = 8  # check once min_prompts * samples_per_prompt rollouts at h were seen
    c.scheduler.static_lo = 0  # the static baseline's level range
    c.scheduler.static_hi = 4

    c.rollout = ml_collections.ConfigDict()
    c.rollout.prompts_per_step = 128  # groups kept per optimiser step
    c.rollout.samples_per_prompt = 16  # G
    c.rollout.oversample_prompts = 384  # prompts drawn per generation round (dynamic sampling)
    c.rollout.max_rounds = 8  # give up filling the batch after this many rounds (train on what is kept)
    c.rollout.dynamic_sampling = True  # drop groups whose rewards are all equal
    c.rollout.max_prompt_tokens = 2048  # longer prompts are skipped (and counted)
    c.rollout.max_response_tokens = 24576
    c.rollout.temperature = 1.0
    c.rollout.top_p = 1.0
    c.rollout.top_k = -1  # -1 = off
    # "continuous" (rlve_jax/engine.py: decode slots refilled as rows finish, attention over live lengths) or
    # "static" (sampler.generate: chunks decoded until their longest row stops). Same tokens for the same keys.
    c.rollout.engine = "continuous"
    c.rollout.segment_steps = 16  # continuous: decode steps per jitted segment (finished rows are replaced between)
    # Partial rollouts (continuous engine, one process): once a round's completed groups fill the step's batch,
    # decoding stops and the unfinished groups are carried into the next step (tokens, sampler logprobs and
    # each token's policy version kept; TIS corrects with those logprobs); they are in the checkpoint.
    c.rollout.partial_rollouts = True
    # KV-cache tokens held at once (continuous: slots + one prefill batch; static: per chunk). 0 = continuous:
    # the sampler devices' free memory after parameters and optimizer state (CPU: 1 GiB); static: one chunk.
    c.rollout.cache_budget_tokens = 0

    c.loss = ml_collections.ConfigDict()
    c.loss.clip_low = 0.2
    c.loss.clip_high = 0.28
    c.loss.tis_clip = 2.0  # truncated importance sampling cap; 0 = off
    c.loss.aggregation = "seq-mean-token-mean"  # the original scripts; "token-mean" is DAPO's
    c.loss.normalize_std = True  # divide advantages by the group std (+1e-6)
    c.loss.overlong_buffer = 0  # DAPO soft overlong penalty over the last N tokens; 0 = off (as the paper)

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
    # > 0: micro-batches of length-sorted sequences holding up to this many tokens (rows x padded length),
    # lengths bucketed finely (padding <= ~10%); 0 = micro_batch_size rows padded to the batch's longest.
    c.train.max_tokens_per_micro_batch = 0

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
    # The code suite (rlve_jax/code_eval.py): LiveCodeBench's released JSONL, programs run in rlve_jax/sandbox.py.
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


def load_config_file(path: str | Path, *args: str) -> ml_collections.ConfigDict:
    """`get_config(*args)` of a config file (what --config=path:arg gives absl)."""
    spec = importlib.util.spec_from_file_location(f"_config_{Path(path).stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.get_config(*args)


def experiment(name: str) -> ml_collections.ConfigDict:
    """The config of configs/<name>.py; a mesh preset starts from one (--config=configs/mesh/gpu8.py:c256)."""
    return load_config_file(CONFIGS / f"{name}.py")
