"""KthSubsequence: the K-th distinct non-empty subsequence of an a/b string in lexicographic order."""

from rlve_jax.gym.env import Environment, FormatError
from rlve_jax.gym.environments._common import check_length, grow_1p1


def next_positions(text: str) -> list[dict[str, int]]:
    """nxt[i][c]: first index >= i holding letter c (len(text) if none)."""
    nxt = [{"a": len(text), "b": len(text)} for _ in range(len(text) + 1)]
    for i in range(len(text) - 1, -1, -1):
        nxt[i] = dict(nxt[i + 1])
        nxt[i][text[i]] = i
    return nxt


def subsequence_counts(text: str) -> tuple[list[dict[str, int]], list[int]]:
    """The automaton and count[i] = distinct subsequences (empty included) of text[i:]."""
    nxt = next_positions(text)
    count = [1] * (len(text) + 1)
    for i in range(len(text) - 1, -1, -1):
        count[i] = 1 + sum(count[nxt[i][c] + 1] for c in "ab" if nxt[i][c] < len(text))
    return nxt, count


def kth_subsequence(text: str, k: int) -> str:
    """Walk the subsequence automaton, skipping whole blocks of strings that share a first letter."""
    nxt, count = subsequence_counts(text)
    result, i = [], 0
    while True:
        for c in "ab":
            j = nxt[i][c]
            if j == len(text):
                continue
            if k <= count[j + 1]:  # strings starting with c: c itself plus c + (non-empty continuations)
                result.append(c)
                k -= 1
                i = j + 1
                break
            k -= count[j + 1]
        if k == 0:
            return "".join(result)


def distinct_subsequences(text: str) -> int:
    return subsequence_counts(text)[1][0] - 1


class KthSubsequence(Environment):
    name = "KthSubsequence"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        a_probability = rng.random()
        text = "".join("a" if rng.random() < a_probability else "b" for _ in range(params["N"]))
        k = rng.randint(1, distinct_subsequences(text))
        return {"S": text, "K": k, "reference": kth_subsequence(text, k)}

    def prompt(self, data):
        return (
            f"Consider the string S = {data['S']}. List all distinct non-empty subsequences of S (strings obtained "
            "by deleting zero or more characters, keeping the order; each distinct string once) and sort them in "
            "lexicographic order (a string comes before every longer string that starts with it, e.g. a < aa < ab "
            f"< b). Which string is at position {data['K']} of this list (counting from 1)?\n\n"
            "Output Format: the string itself, using only the letters a and b."
        )

    def score(self, data, answer):
        if any(ch not in "ab" for ch in check_length(answer)):
            raise FormatError("only a and b are allowed")
        return float(answer == data["reference"])
