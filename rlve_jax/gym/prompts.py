"""The paper's prompt formats: the chat template over one user turn with `\\boxed{}` answers, or the plain
TinyZero text with `<answer>` tags; the environment prompt never names the answer markers itself.
"""

from __future__ import annotations

import dataclasses

from rlve_jax.gym.env import ANSWER_TAGS, BOXED
from rlve_jax.gym.tokenizer import Tokenizer

TINYZERO_TEMPLATE = (
    "A conversation between User and Assistant. The user asks a question, and the Assistant solves it. "
    "The Assistant first thinks about the reasoning process in the mind and then provides the user with the "
    "answer. The reasoning process is enclosed within <think> </think> tags and the final answer within "
    "<answer> </answer> tags.\nUser: {prompt}\nAssistant: Let me solve this step by step.\n<think>"
)
BOXED_INSTRUCTION = "Please reason step by step, and put your final answer within \\boxed{}."


@dataclasses.dataclass(frozen=True)
class PromptFormat:
    """The paper's two prompt wrappers and the answer markers the verifier looks for.

    "chat": the model's chat template, one user turn, no system prompt, `\\boxed{}` markers;
    the environment prompt is followed by `instruction` (environments never name the marker).
    "tinyzero": the plain User/Assistant text ending in an opened `<think>`, `<answer>` markers.
    """

    name: str
    tokenizer: Tokenizer | None = None
    instruction: str | None = None
    enable_thinking: bool | None = None

    @classmethod
    def make(cls, name: str, tokenizer: Tokenizer | None = None, instruction: str | None = "default",
             enable_thinking: bool | None = None) -> "PromptFormat":
        """instruction="default" picks the boxed-answer sentence for "chat" and none for "tinyzero"."""
        if name not in ("chat", "tinyzero"):
            raise ValueError(f"unknown prompt format {name!r}: chat or tinyzero")
        if name == "chat" and tokenizer is None:
            raise ValueError("the chat format needs a tokenizer with a chat template")
        if instruction == "default":
            instruction = BOXED_INSTRUCTION if name == "chat" else None
        return cls(name, tokenizer, instruction, enable_thinking)

    @property
    def markers(self) -> tuple[str, str]:
        return BOXED if self.name == "chat" else ANSWER_TAGS

    def render(self, problem_prompt: str) -> str:
        prompt = f"{problem_prompt.rstrip()}\n\n{self.instruction}" if self.instruction else problem_prompt
        if self.name == "tinyzero":
            return TINYZERO_TEMPLATE.format(prompt=prompt)
        return self.tokenizer.apply_chat_template([{"role": "user", "content": prompt}],
                                                  add_generation_prompt=True, enable_thinking=self.enable_thinking)

    def encode(self, problem_prompt: str) -> list[int]:
        """Token ids of the rendered prompt (needs a tokenizer): the one place a prompt becomes tokens."""
        return self.tokenizer.encode(self.render(problem_prompt))

    def completion(self, answer: str) -> str:
        """The response text that states `answer` in the format's markers (the warm start's targets)."""
        start, end = self.markers
        closing = "</think>\n" if self.name == "tinyzero" else ""  # the tinyzero prompt opens <think>
        return f"{closing}{start}{answer}{end}"
