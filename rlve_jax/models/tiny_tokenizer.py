"""The small tokenizer of the embedded CPU run, built from the gym's own prompts.

A byte-level BPE (exact round trip for any text) with every digit its own token, so a tiny
model can learn arithmetic answers; trained deterministically on the texts the run's policy reads
and writes (prompts in both formats, the chat template's own words, answers in their markers) and
written as tokenizer.json + tokenizer_config.json, like a HF checkpoint's.

Without the word split (the default) merges may cross spaces, so the fixed sentences of a prompt
become a few tokens and the vocabulary size is a real knob; with it (GPT-2's word regex) merges stop
at word boundaries and the vocabulary saturates near 500 tokens whatever size is asked.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers

from rlve_jax.gym import registry
from rlve_jax.gym.env import ANSWER_TAGS, BOXED
from rlve_jax.gym.prompts import BOXED_INSTRUCTION, TINYZERO_TEMPLATE
from rlve_jax.gym.tokenizer import compile_chat_template

EOS = "<|endoftext|>"
SPECIAL_TOKENS = [EOS, "<|im_start|>", "<|im_end|>"]
MARKER_TOKENS = ["<think>", "</think>", "<answer>", "</answer>"]  # ordinary text when decoded
# A Qwen-style chat template, so the "chat" prompt format also works with the tiny tokenizer.
CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
SETTINGS_KEY = "rlve_tiny_tokenizer"  # tokenizer_config.json's record of how the tokenizer was built


def corpus(env_names: Sequence[str], difficulties: Iterable[int] = range(8), seeds: int = 40) -> Iterator[str]:
    """The texts the policy reads and writes at several levels, cut at the special tokens (which never merge):
    the chat template around the boxed prompt, the TinyZero text, and the answers in each format's markers."""
    chat = compile_chat_template(CHAT_TEMPLATE)
    special = re.compile("|".join(map(re.escape, SPECIAL_TOKENS)))
    for env in registry.make_all(list(env_names)):
        for d in difficulties:
            for seed in range(seeds):
                problem = env.generate(d, seed)
                answer = env.reference(problem) or ""
                texts = (
                    chat.render(messages=[{"role": "user", "content": f"{problem.prompt}\n\n{BOXED_INSTRUCTION}"}],
                                add_generation_prompt=True),
                    TINYZERO_TEMPLATE.format(prompt=problem.prompt),
                    f"{BOXED[0]}{answer}{BOXED[1]}",
                    f"</think>\n{ANSWER_TAGS[0]}{answer}{ANSWER_TAGS[1]}",
                )
                for text in texts:
                    yield from (piece for piece in special.split(text) if piece)


def build(env_names: Sequence[str], out_dir: str | Path, vocab_size: int = 1024, word_split: bool = False) -> Path:
    """Train the tokenizer into out_dir and return out_dir; a tokenizer already there is reused when it was built
    with the same settings, and refused (one line) when not."""
    out = Path(out_dir)
    settings = {"environments": sorted(env_names), "vocab_size": vocab_size, "word_split": word_split}
    if (out / "tokenizer.json").exists():
        built = json.loads((out / "tokenizer_config.json").read_text()).get(SETTINGS_KEY)
        if built != settings:
            raise ValueError(f"{out} holds a tiny tokenizer built with {built}, not {settings}: use another "
                             "workdir, or delete that directory to rebuild it")
        return out
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Digits(individual_digits=True),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=word_split),
    ])
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIAL_TOKENS, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tokenizer.train_from_iterator(list(corpus(env_names)), trainer=trainer)
    tokenizer.add_tokens([AddedToken(t, special=False, normalized=False) for t in MARKER_TOKENS])
    tokenizer.save(str(out / "tokenizer.json"))
    (out / "tokenizer_config.json").write_text(json.dumps({
        "eos_token": EOS, "pad_token": EOS, "chat_template": CHAT_TEMPLATE,
        "added_tokens_decoder": {str(tokenizer.token_to_id(t)): {"content": t, "special": True}
                                 for t in SPECIAL_TOKENS},
        SETTINGS_KEY: settings,
    }, indent=1))
    return out
