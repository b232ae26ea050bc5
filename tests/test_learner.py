"""The learner's staging arithmetic (which global row holds each kept sequence), with 1-4 fake processes."""

import numpy as np
import pytest

from rlve_jax.rl.learner import staging_layout


def contiguous(process_count):
    """Process q fills rows [q * n / P, (q + 1) * n / P): devices ordered by process."""
    return lambda n: [np.arange(q * n // process_count, (q + 1) * n // process_count) for q in range(process_count)]


def interleaved(process_count, shards):
    """Each process's shards scattered over the array: shard j of process q is global shard j * P + q."""
    def rows(n):
        size = n // (process_count * shards)
        return [np.concatenate([np.arange((j * process_count + q) * size, (j * process_count + q + 1) * size)
                                for j in range(shards)]) for q in range(process_count)]
    return rows


def test_a_hand_computed_layout():
    layout = staging_layout(np.array([1, 0, 1]), group_size=2, process_count=2, shards_per_process=1,
                            process_rows=contiguous(2))
    # process 1 holds two groups (4 rows + 1 spare = 5 per process); process 0's last row pads
    assert layout.capacity == 5
    assert layout.row_of.tolist() == [5, 6, 0, 1, 7, 8]
    assert layout.empty == 4


@pytest.mark.parametrize("process_count", [1, 2, 3, 4])
@pytest.mark.parametrize("shards", [1, 2, 4])
@pytest.mark.parametrize("make_rows", [contiguous, interleaved])
def test_every_sequence_lands_in_its_owners_rows_in_draw_order(process_count, shards, make_rows):
    rng = np.random.default_rng(process_count * 10 + shards)
    rows_fn = make_rows(process_count) if make_rows is contiguous else make_rows(process_count, shards)
    for kept in [0, 1, 5, 17]:
        owner = rng.integers(0, process_count, kept)
        g = int(rng.integers(1, 5))
        layout = staging_layout(owner, g, process_count, shards, rows_fn)
        load = np.bincount(owner, minlength=process_count).max() if kept else 0
        assert layout.capacity % shards == 0 and layout.capacity >= load * g + 1
        place = rows_fn(process_count * layout.capacity)
        assert len(set(layout.row_of.tolist())) == kept * g  # no two sequences share a row
        assert layout.empty not in set(layout.row_of.tolist()) and layout.empty in set(place[0].tolist())
        for q in range(process_count):
            mine = layout.row_of.reshape(kept, g)[owner == q].reshape(-1)  # draw order
            local = [int(np.flatnonzero(place[q] == r)[0]) for r in mine]
            assert local == list(range(len(mine)))  # packed from the process's first row, in draw order


def test_the_first_warm_up_update_trains():
    from rlve_jax.rl.train_step import OptimSettings, learning_rate

    schedule = learning_rate(OptimSettings(lr=1e-3, b1=0.9, b2=0.98, eps=1e-8, weight_decay=0.0, grad_clip=1.0,
                                           warmup_steps=4))
    assert [float(schedule(count)) for count in range(6)] == pytest.approx([2.5e-4, 5e-4, 7.5e-4, 1e-3, 1e-3, 1e-3])
