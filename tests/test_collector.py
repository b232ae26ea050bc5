"""The collector: dynamic sampling's rounds, the kept groups' draw order and the batch's capacity, the failure
budget, as the Trainer's batch source (with a fake generator and pool); the step metrics (the paper's effective
prompt ratio and the kept share)."""

import types

import numpy as np
import pytest

from rlve_jax.generation.generator import SamplingSettings
from rlve_jax.generation.sampler import SampleOutput
from rlve_jax.gym.env import Problem, Verdict
from rlve_jax.gym.pool import FailureBudgetExceeded, FailureTally
from rlve_jax.gym.scheduler import AdaptiveScheduler
from rlve_jax.rl.collector import Collector, CollectorSettings, GroupRecords, rollout_metrics
from rlve_jax.rl.rollout import RolloutStats

G = 4
RIGHT, WRONG = 1, 2  # the fake tokenizer's two response tokens


def informative_seed(seed: int) -> bool:
    """The fake generator's rule: a problem's G responses are mixed (informative) when its seed is 1 mod 3, all
    wrong at 0 mod 3, all right at 2 mod 3."""
    return seed % 3 == 1


class FakeGenerator:
    """Each response answers right or wrong by the problem's seed (its prompt's one token) and the row's index."""

    resumable = False

    def __init__(self):
        self.calls = []

    def generate(self, model, prompts, settings, *, rng, prompt_ids=None):
        self.calls.append((model, [p[0] for p in prompts], list(prompt_ids)))
        right = [[s % 3 == 2 or (informative_seed(s) and g % 2 == 0) for g in range(settings.samples)]
                 for s in (p[0] for p in prompts)]
        tokens = np.array([[RIGHT if r else WRONG] for row in right for r in row], np.int32)  # [N, 1]
        n = len(tokens)
        return SampleOutput(np.repeat(np.arange(len(prompts)), settings.samples), tokens, np.full((n, 1), -0.5),
                            np.ones(n, np.int32), np.ones(n, bool), np.zeros(n, bool), 1024)


class FakePool:
    """Problems whose prompt is their seed; the seeds in `failing` fail to generate; "right" is correct."""

    def __init__(self, failing=()):
        self.failing, self.tally = set(failing), FailureTally()

    def generate(self, requests):
        self.tally.attempted["generate"] += len(requests)
        out = []
        for env, difficulty, seed in requests:
            if seed in self.failing:
                self.tally.failed["generate", env, "error"] += 1
                out.append(None)
            else:
                out.append(Problem(env, difficulty, seed, str(seed), {}, {}))
        return out

    def verify(self, problems, texts, markers):
        self.tally.attempted["verify"] += len(texts)
        return [Verdict(1.0, True, True, "correct") if t == "right" else Verdict(0.0, False, True, "wrong")
                for t in texts]

    def take_tally(self):
        tally, self.tally = self.tally, FailureTally()
        return tally


def fake_policy():
    tokenizer = types.SimpleNamespace(decode=lambda tokens, skip_special_tokens: {RIGHT: "right", WRONG: "wrong"}[
        tokens[0]])
    prompt_format = types.SimpleNamespace(encode=lambda prompt: [int(prompt)], markers=("<", ">"))
    return types.SimpleNamespace(tokenizer=tokenizer, prompt_format=prompt_format,
                                 sampler_model=lambda params: ("sampler", params))


def collector(pool=None, generator=None, **settings) -> Collector:
    values = {**dict(sampling=SamplingSettings(G, 4), prompts_per_step=3, oversample_prompts=4, max_rounds=8,
                     group_filter="informative", partial_rollouts=False, segment_steps=16, reward_key="reward",
                     max_failure_share=0.5, seed=0), **settings}
    return Collector(fake_policy(), pool or FakePool(), AdaptiveScheduler(["A"], seed=0), generator or FakeGenerator(),
                     env_names=["A"], settings=CollectorSettings(**values))


def seeds(collection) -> list[int]:
    """The problem seed of each generated group, in draw order (the scheduler draws seeds 0, 1, 2, ...)."""
    return [g.problem.seed for g in collection.mine]


def test_rounds_run_until_the_batch_is_full_and_keep_draw_order():
    generator = FakeGenerator()
    collection = collector(generator=generator).take(0, "params")
    # Round 1 draws seeds 0-3 (one informative: 1), round 2 seeds 4-7 (4 and 7): three kept, two rounds.
    assert seeds(collection) == list(range(8))
    assert collection.kept.tolist() == [1, 4, 7]
    assert collection.records.informative.tolist() == [informative_seed(s) for s in range(8)]
    assert collection.stats.rounds == 2 and collection.stats.drawn_groups == 8 and collection.stats.kept_groups == 3
    assert collection.stats.seconds["reshard"] >= 0  # take placed the parameters on the sampler
    assert [call[0] for call in generator.calls] == [("sampler", "params")] * 2  # the learner's, taken by the source
    assert [call[2] for call in generator.calls] == [[0, 1, 2, 3]] * 2  # a round's draws name its sampling keys
    assert collection.records.reward.shape == (8, G) and collection.records.length.tolist() == [[1] * G] * 8
    metrics = rollout_metrics(collection.records, ["A"], collection.stats)
    assert metrics["rollout/effective_prompt_ratio"] == 3 / 8 and metrics["rollout/kept_ratio"] == 3 / 8


def test_the_batch_keeps_no_more_than_prompts_per_step_even_when_a_round_offers_more():
    collection = collector(prompts_per_step=2).collect(0, "model", 0)
    assert collection.kept.tolist() == [1, 4]  # seed 7 is informative too: no room
    assert collection.stats.rounds == 2 and collection.stats.drawn_groups == 8  # the round ran whole


def test_a_step_trains_on_what_it_kept_when_the_rounds_run_out():
    collection = collector(prompts_per_step=10, max_rounds=2).collect(0, "model", 0)
    assert collection.kept.tolist() == [1, 4, 7] and collection.stats.rounds == 2


def test_the_all_filter_keeps_every_group_in_draw_order():
    collection = collector(group_filter="all", prompts_per_step=5).collect(0, "model", 0)
    assert collection.kept.tolist() == [0, 1, 2, 3, 4] and collection.stats.rounds == 2


def test_failed_generations_are_counted_and_skipped_within_the_budget():
    collection = collector(FakePool(failing={1})).collect(0, "model", 0)
    assert seeds(collection) == [0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]  # seed 1 never made it to a group
    assert collection.kept.tolist() == [3, 6, 9]  # seeds 4, 7 and 10 (records: generated groups only)
    assert collection.stats.failed_generations == 1 and collection.failures["pool/failed_generations"] == 1


def test_more_failures_than_the_budget_allows_stop_the_step_with_one_line():
    with pytest.raises(FailureBudgetExceeded, match=r"^step 3: 5 of 8 generations failed") as error:
        collector(FakePool(failing={0, 2, 3, 5, 6}), max_rounds=2, prompts_per_step=10).collect(2, "model", 2)
    kept = collector(FakePool(failing={0, 2, 3, 5}), max_rounds=2, prompts_per_step=10).collect(2, "model", 2)
    assert kept.stats.failed_generations == 4  # 4 of 8: at the budget, not past it
    assert "\n" not in str(error.value)


def test_partial_rollouts_need_a_resumable_generator():
    with pytest.raises(TypeError, match="partial rollouts decode in the continuous Engine"):
        collector(partial_rollouts=True)


def test_the_collector_as_a_batch_source_collects_when_taken_and_carries_nothing_without_partial_rollouts():
    batches = collector()
    batches.ahead(1, "params", version=0)  # nothing runs ahead
    batches.settle()
    state = batches.state_dict()
    assert batches.seconds() == {} and state["processes"] == 1 and not len(state["carried_owner"])
    first, second = batches.take(0, "params"), batches.take(1, "params")
    assert seeds(second)[0] == seeds(first)[-1] + 1 == 8  # the scheduler's draws go on where the last step stopped
    assert [seeds(second)[i] for i in second.kept] == [10, 13, 16]


class FakeResumable:
    """Rows of a problem answer right or wrong as FakeGenerator's, and are as long as its seed (capped at the row
    limit) plus the row's index: each run decodes every row at most `steps` more tokens."""

    resumable, peak_cache_bytes = True, 1024

    def __init__(self):
        self.runs = []

    def run(self, model, rows, key, *, steps=None, version=0):
        self.runs.append(steps)
        for row in rows:
            seed, g = row.prompt[0], row.row_id % G
            right = seed % 3 == 2 or (informative_seed(seed) and g % 2 == 0)
            length = min(1 + seed % 5 + g, row.max_new_tokens)
            while len(row.tokens) < min(length, len(row.tokens) + steps):
                row.tokens.append(RIGHT if right else WRONG)
                row.logprobs.append(-0.5)
                row.versions.append(version)
            row.finished = len(row.tokens) == length
            row.done = row.finished or len(row.tokens) == row.max_new_tokens
        return rows


def partial_collector(segment_steps: int) -> Collector:
    return collector(generator=FakeResumable(), partial_rollouts=True, segment_steps=segment_steps,
                     sampling=SamplingSettings(G, 8), prompts_per_step=2, oversample_prompts=6)


def carried_state(batches: Collector) -> list[tuple]:
    return [(g.problem.seed, g.draw, [(r.tokens, r.versions, r.done) for r in g.rows]) for g in batches.carried]


def test_partial_rollouts_stop_at_the_length_where_the_kept_groups_complete_whatever_the_phases():
    """A round decodes as if in lockstep: it stops at the least length by which prompts_per_step kept groups are
    complete; longer groups are carried, their rows cut back to that length. Decoding phases of 1, 2 or 8 tokens
    (8: one phase, every row to its end) give the same groups, records and carried rows."""
    runs = []
    for segment_steps in (1, 2, 8):
        batches = partial_collector(segment_steps)
        first = batches.collect(0, "model", 0)
        carried = carried_state(batches)
        second = batches.collect(1, "model", 1)  # the carried groups first, under the next version
        runs.append((first, carried, second, carried_state(batches), batches.generator.runs))
    for first, carried, second, carried_after, _ in runs:
        assert [g.problem.seed for g in first.mine] == [g.problem.seed for g in runs[0][0].mine]
        assert first.records.length.tolist() == runs[0][0].records.length.tolist()
        assert first.kept.tolist() == runs[0][0].kept.tolist() and carried == runs[0][1]
        assert [g.response_tokens for g in second.mine] == [g.response_tokens for g in runs[0][2].mine]
        assert carried_after == runs[0][3]
    first, carried = runs[0][0], runs[0][1]
    # seeds 0-5 (lengths 1 + seed % 5 + g, up to 4 rows): seeds 1 and 4 are informative, complete at 5 and 8
    # tokens: the round stops at 8; the groups of length <= 8 are the round's, ordered by length, then draw.
    assert [g.problem.seed for g in first.mine] == [0, 5, 1, 2, 3, 4]
    assert [first.mine[i].problem.seed for i in first.kept] == [1, 4] and first.stats.carried_rows == 0
    assert carried == [] and runs[0][4][:2] == [1, 1]  # the phases double: 1, 1, 2, 4 tokens
    assert runs[2][4][0] == 8
    assert first.stats.generated_tokens == sum(int(x) for x in first.records.length.reshape(-1))


def test_carried_rows_are_cut_back_to_the_stop_length_and_resume_with_their_versions():
    batches = collector(generator=FakeResumable(), partial_rollouts=True, segment_steps=1, prompts_per_step=1,
                        sampling=SamplingSettings(G, 8), oversample_prompts=6)
    first = batches.collect(0, "model", 0)
    assert [first.mine[i].problem.seed for i in first.kept] == [1]  # seed 1 complete at 5 tokens
    stop = max(first.records.length[first.kept[0]])
    assert stop == 5 and max(int(x) for x in first.records.length.reshape(-1)) <= stop
    assert batches.carried and first.stats.carried_rows == sum(not r.done for g in batches.carried for r in g.rows)
    for group in batches.carried:
        assert max(len(r.tokens) for r in group.rows) == stop  # cut at the stop length
        assert any(not r.done for r in group.rows) and all(r.versions == [0] * len(r.tokens) for r in group.rows)
    second = batches.collect(1, "model", 1)
    # The carried seeds 2-4 need 1-3 more tokens; seed 4 (informative) fills the batch at 3, before any new group.
    assert [g.problem.seed for g in second.mine] == [2, 3, 4] and second.kept.tolist() == [2]
    assert second.stats.staleness_max == 1  # their first 5 tokens were drawn one version earlier
    state = batches.state_dict()
    restored = partial_collector(1)
    restored.load_state_dict(state)
    assert carried_state(restored) == carried_state(batches)


def records(informative: list[bool], g: int = 4) -> GroupRecords:
    n = len(informative)
    reward = np.array([[0.0, 1.0] * (g // 2) if i else [1.0] * g for i in informative])
    return GroupRecords(owner=np.zeros(n, np.int32), env=np.zeros(n, np.int32), difficulty=np.zeros(n, np.int32),
                        prompt_length=np.full(n, 5, np.int32), informative=np.array(informative),
                        passes=np.array(informative), reward=reward,
                        accuracy=reward > 0, format_ok=np.ones((n, g), bool), length=np.full((n, g), 3, np.int32),
                        truncated=np.zeros((n, g), bool))


def test_every_group_informative_reads_one_even_when_the_batch_keeps_half():
    stats = RolloutStats(drawn_groups=16, kept_groups=8)  # prompts_per_step 8 of 16 drawn, all informative
    metrics = rollout_metrics(records([True] * 16), ["Sorting"], stats)
    assert metrics["rollout/effective_prompt_ratio"] == 1.0
    assert metrics["rollout/kept_ratio"] == 0.5


def test_effective_ratio_counts_groups_with_unequal_rewards():
    stats = RolloutStats(drawn_groups=4, kept_groups=1)
    metrics = rollout_metrics(records([True, False, False, False]), ["Sorting"], stats)
    assert metrics["rollout/effective_prompt_ratio"] == 0.25
    assert metrics["rollout/kept_ratio"] == 0.25


def test_binary_key_ratio_ignores_groups_informative_only_on_the_shaped_reward():
    stats = RolloutStats(drawn_groups=2, kept_groups=2, sampled_logprob_sum=-12.0, generated_tokens=24)
    two = records([True, True])
    two.reward[1] = [-0.5, -1.0, -0.5, -1.0]  # two different wrong answers: informative on the reward only
    two.accuracy[1] = False
    metrics = rollout_metrics(two, ["Sorting"], stats)
    assert metrics["rollout/effective_prompt_ratio"] == 1.0
    assert metrics["rollout/effective_prompt_ratio_accuracy"] == 0.5
    assert metrics["rollout/entropy"] == 0.5  # 12 nats over 24 tokens
    assert metrics["rollout/entropy_per_response"] == 1.5  # 12 nats over 8 responses
