"""The small tokenizer of the embedded CPU run, built from the gym's own prompts.

A byte-level BPE (exact round trip for any text) with every digit its own token, so a tiny
model can learn arithmetic answers; trained deterministically on prompts of the run's
environments and written as tokenizer.json + tokenizer_config.json, like a HF checkpoint's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers

from rlve_jax.gym import registry
from rlve_jax.gym.prompts import BOXED_INSTRUCTION, TINYZERO_TEMPLATE

EOS = "<|endoftext|>"
SPECIAL_TOKENS = [EOS, "<|im_start|>", "<|im_end|>"]
MARKER_TOKENS = ["<think>", "</think>", "<answer>", "</answer>"]  # ordinary text when decoded
# A Qwen-style chat template, so the "chat" prompt format also works with the tiny tokenizer.
CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def corpus(env_names: Sequence[str], difficulties: Iterable[int] = range(8), seeds: int = 40) -> Iterator[str]:
    """Prompts as both prompt formats wrap them, and reference answers, at several levels."""
    for env in registry.make_all(list(env_names)):
        for d in difficulties:
            for seed in range(seeds):
                problem = env.generate(d, seed)
                yield TINYZERO_TEMPLATE.format(prompt=problem.prompt)
                yield f"{problem.prompt}\n{BOXED_INSTRUCTION}"
                yield env.reference(problem) or ""


def build(env_names: Sequence[str], out_dir: str | Path, vocab_size: int = 512) -> Path:
    """Train the tokenizer (if out_dir does not hold one yet) and return out_dir."""
    out = Path(out_dir)
    if (out / "tokenizer.json").exists():
        return out
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Digits(individual_digits=True),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
    ])
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIAL_TOKENS, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    texts = list(corpus(env_names))
    tokenizer.train_from_iterator(texts, trainer=trainer)
    tokenizer.add_tokens([AddedToken(t, special=False, normalized=False) for t in MARKER_TOKENS])
    tokenizer.save(str(out / "tokenizer.json"))
    (out / "tokenizer_config.json").write_text(json.dumps({
        "eos_token": EOS, "pad_token": EOS, "chat_template": CHAT_TEMPLATE,
        "added_tokens_decoder": {str(tokenizer.token_to_id(t)): {"content": t, "special": True}
                                 for t in SPECIAL_TOKENS},
    }, indent=1))
    return out
