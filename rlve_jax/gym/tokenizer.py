"""HF tokenizer files without transformers: `tokenizers` and chat templates (no JAX: the gym uses it too).

Chat templates are rendered the way transformers renders them (sandboxed Jinja2 with
trim_blocks/lstrip_blocks, loopcontrols, its tojson/raise_exception/strftime_now), so the
text a model sees here is the text it saw in training.
"""

from __future__ import annotations

import datetime
import json
import os
from typing import Any, Sequence

import jinja2
import jinja2.ext
from jinja2.sandbox import ImmutableSandboxedEnvironment
from tokenizers import Tokenizer as _HFTokenizer

_SPECIAL_NAMES = ("bos_token", "eos_token", "pad_token", "unk_token")


def _read_json(path: str) -> dict[str, Any]:
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _token_text(value: Any) -> str | None:
    """Special tokens are stored as strings or as serialised AddedToken dicts."""
    return value.get("content") if isinstance(value, dict) else value


def _raise(message: str):
    raise jinja2.exceptions.TemplateError(message)


def _tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def compile_chat_template(source: str) -> jinja2.Template:
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
    env.filters["tojson"] = _tojson
    env.globals["raise_exception"] = _raise
    env.globals["strftime_now"] = lambda fmt: datetime.datetime.now().strftime(fmt)
    return env.from_string(source)


class Tokenizer:
    """tokenizer.json + tokenizer_config.json (+ generation_config.json for extra stop ids)."""

    def __init__(self, tokenizer: _HFTokenizer, config: dict[str, Any], generation_config: dict[str, Any],
                 chat_template: str | None):
        self._tok = tokenizer
        self.config = config
        self.special = {name: _token_text(config.get(name)) for name in _SPECIAL_NAMES}
        self._template = compile_chat_template(chat_template) if chat_template else None
        eos = generation_config.get("eos_token_id", [])
        eos = [eos] if isinstance(eos, int) else list(eos)
        if self.special["eos_token"] is not None:
            eos.append(self.token_id(self.special["eos_token"]))
        self.eos_ids: tuple[int, ...] = tuple(dict.fromkeys(eos))
        pad = self.special["pad_token"]
        self.pad_id: int = self.token_id(pad) if pad is not None else self.eos_ids[0]

    @classmethod
    def from_dir(cls, path: str | os.PathLike) -> "Tokenizer":
        path = os.fspath(path)
        config = _read_json(os.path.join(path, "tokenizer_config.json"))
        template = config.get("chat_template")
        if isinstance(template, list):  # named templates: use the default one
            template = {t["name"]: t["template"] for t in template}.get("default")
        if os.path.exists(jinja_file := os.path.join(path, "chat_template.jinja")):
            with open(jinja_file, encoding="utf-8") as f:
                template = f.read()
        return cls(_HFTokenizer.from_file(os.path.join(path, "tokenizer.json")), config,
                   _read_json(os.path.join(path, "generation_config.json")), template)

    @property
    def vocab_size(self) -> int:
        return self._tok.get_vocab_size(with_added_tokens=True)

    def token_id(self, token: str) -> int:
        idx = self._tok.token_to_id(token)
        if idx is None:
            raise KeyError(f"token {token!r} is not in the vocabulary")
        return idx

    def encode(self, text: str, add_special_tokens: bool = False) -> list[int]:
        """Token ids; rendered chat templates already hold their special tokens, hence the default."""
        return self._tok.encode(text, add_special_tokens=add_special_tokens).ids

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = False) -> str:
        return self._tok.decode(list(ids), skip_special_tokens=skip_special_tokens)

    def apply_chat_template(self, messages: list[dict[str, Any]], add_generation_prompt: bool = True,
                            enable_thinking: bool | None = None, **kwargs) -> str:
        """The rendered conversation text (tokenize with `encode`)."""
        if self._template is None:
            raise ValueError("this tokenizer has no chat template")
        if enable_thinking is not None:
            kwargs["enable_thinking"] = enable_thinking
        return self._template.render(messages=messages, add_generation_prompt=add_generation_prompt,
                                     **{k: v for k, v in self.special.items() if v is not None}, **kwargs)
