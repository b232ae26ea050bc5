"""ZeroPrefixSubsetCounting: non-empty subsets of the strings in which no string is a prefix of another."""

import random

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import score_count


def prefix_free_subsets(words: list[str]) -> int:
    """Antichains of the trie: at a node, either pick one of the words ending there or combine the children."""
    trie: dict = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node["$"] = node.get("$", 0) + 1

    def ways(node: dict) -> int:  # subsets inside this subtree, the empty one included
        product = 1
        for key in sorted(node):
            if key != "$":
                product *= ways(node[key])
        return product + node.get("$", 0)

    return ways(trie) - 1


def random_words(rng: random.Random, n: int) -> list[str]:
    """Random a/b words, many of them prefixes or extensions of earlier ones."""
    words: list[str] = []
    for _ in range(n):
        kind = rng.random()
        if words and kind < 0.3:
            base = rng.choice(words)
            words.append(base[:rng.randint(1, len(base))])
        elif words and kind < 0.6:
            words.append(rng.choice(words) + "".join(rng.choice("ab") for _ in range(rng.randint(1, 3))))
        else:
            words.append("".join(rng.choice("ab") for _ in range(rng.randint(1, max(1, n // 2)))))
    return words


class ZeroPrefixSubsetCounting(Environment):
    name = "ZeroPrefixSubsetCounting"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        words = random_words(rng, params["N"])
        return {"words": words, "answer": prefix_free_subsets(words)}

    def prompt(self, data):
        words = "\n".join(f"String {i}: {w}" for i, w in enumerate(data["words"]))
        return (
            f"You are given {len(data['words'])} strings (equal strings count as different items):\n{words}\n\n"
            "Count the non-empty subsets of these strings in which no string is a prefix of another string of the "
            "subset (a string is a prefix of itself, so two equal strings may not both be chosen).\n\n"
            "Output Format: a single integer, the number of such subsets."
        )

    def score(self, data, answer):
        return score_count(answer, data["answer"])

    def reference(self, problem):
        return str(problem.data["answer"])
