"""SelfPowerSequenceMOD: the eventual value of the tower a[n] = 2^a[n-1] modulo MOD."""

from rlve_jax.gym.environments._numbers import euler_phi
from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import score_mod


def tower_mod(m: int) -> int:
    """2^T mod m for the infinite tower T: 2^T = 2^(T mod phi(m) + phi(m)) mod m since T >= log2(m)."""
    if m == 1:
        return 0
    phi = euler_phi(m)
    return pow(2, tower_mod(phi) + phi, m)


class SelfPowerSequenceMOD(Environment):
    name = "SelfPowerSequenceMOD"

    def levels(self, difficulty):
        return [{"MAX_MOD": 16 * 2**difficulty}]

    def sample(self, params, rng):
        mod = rng.randint(3, params["MAX_MOD"])
        return {"MOD": mod, "reference": str(tower_mod(mod))}

    def prompt(self, data):
        mod = data["MOD"]
        return (
            "Define a[0] = 1 and a[n] = 2^a[n-1] for n >= 1, so a = 1, 2, 4, 16, 65536, 2^65536, .... "
            f"The remainders a[n] mod {mod} become constant from some n on. What is that constant value?\n\n"
            f"Output Format: a single integer between 0 and {mod - 1}."
        )

    def score(self, data, answer):
        return score_mod(answer, int(data["reference"]), data["MOD"])
