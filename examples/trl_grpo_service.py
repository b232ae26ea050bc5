"""TRL's GRPOTrainer on the RLVE gym service: problems drawn from its adaptive scheduler, rewards from its verifiers.

    python -m rlve_jax.serve --collection C16 --state runs/gym &
    python examples/trl_grpo_service.py --url http://127.0.0.1:8000 --model Qwen/Qwen2.5-0.5B-Instruct

Without --model it trains a tiny random Qwen2 built from a config with the project's tiny tokenizer (the CI
run: 2 steps on CPU). Each reward call is one verify request, so the service's levels follow this policy.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path


def tiny_model_and_tokenizer(env_names: list[str], directory: Path):
    """A 2-layer random Qwen2 and the project's tiny BPE tokenizer (trained on the environments' prompts)."""
    import torch
    from transformers import AutoTokenizer, Qwen2Config, Qwen2ForCausalLM

    from rlve_jax.models import tiny_tokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny_tokenizer.build(env_names, directory / "tokenizer"))
    tokenizer.padding_side = "left"
    config = Qwen2Config(vocab_size=len(tokenizer), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=1024,
                         eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id)
    torch.manual_seed(0)
    return Qwen2ForCausalLM(config), tokenizer


def train(url: str, output_dir: str, steps: int = 2, model_name: str | None = None, token: str | None = None,
          openenv: bool = False):
    """Run GRPO for `steps` steps against the service at `url`; returns the trainer.

    openenv=False: rewards from a reward function (one verify request per step). openenv=True: TRL's
    environment_factory with an OpenEnv rollout per completion (the model answers through a tool; needs a
    tool-calling chat template, so the tiny model gets TRL's Qwen2.5 template).
    """
    import functools

    from datasets import IterableDataset
    from trl import GRPOConfig, GRPOTrainer

    from rlve_jax.gym.serve_client import GymClient, OpenEnvRollout, make_trl_reward, problem_stream

    client = GymClient(url, token)
    if model_name is None:
        env_names = client.get("/state")["env_names"]
        model, tokenizer = tiny_model_and_tokenizer(env_names, Path(output_dir))
        if openenv:
            from trl.chat_template_utils import qwen2_5_chat_template

            tokenizer.chat_template = qwen2_5_chat_template
    else:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        model, tokenizer = AutoModelForCausalLM.from_pretrained(model_name), AutoTokenizer.from_pretrained(model_name)
    dataset = IterableDataset.from_generator(problem_stream, gen_kwargs={"url": url, "token": token, "batch": 4})
    args = GRPOConfig(output_dir=output_dir, max_steps=steps, per_device_train_batch_size=4, num_generations=4,
                      max_completion_length=16, learning_rate=1e-4, logging_steps=1, save_strategy="no",
                      report_to="none", use_cpu=model_name is None, bf16=False, seed=0,
                      shuffle_dataset=False)  # the service draws at random: no shuffle buffer drawing ahead
    rewards = dict(environment_factory=functools.partial(OpenEnvRollout, url)) if openenv else dict(
        reward_funcs=make_trl_reward(client))
    trainer = GRPOTrainer(model=model, processing_class=tokenizer, args=args, train_dataset=dataset, **rewards)
    trainer.train()
    return trainer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--model", help="a HF model id or directory (default: a tiny random model)")
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--output-dir", default=None)
    parser.add_argument("--openenv", action="store_true", help="rewards through TRL's environment_factory and the "
                        "service's OpenEnv WebSocket (the model answers with a tool call)")
    args = parser.parse_args()
    output_dir = args.output_dir or tempfile.mkdtemp(prefix="trl_grpo_service_")
    trainer = train(args.url, output_dir, args.steps, args.model, openenv=args.openenv)
    for entry in trainer.state.log_history:
        print(entry)


if __name__ == "__main__":
    main()
