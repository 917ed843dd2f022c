"""Runs spread over a Ray cluster (`run --ray`, `fuzz --ray`): the only module that
imports Ray, an optional extra (`pip install maskref[cluster]`).

`address` "" starts a local cluster of `cpus` CPUs (all of the machine's if None) for the
run, shut down after it; any other address is a running cluster's (`ray start --head` on
one node, `ray start --address HEAD:6379` on the others; `auto` finds the one this
machine is part of), whose nodes need the same maskref (and the peers under test)
installed. Where Ray is already initialised in this process (a test's cluster), it is
used as it is.

`map_unordered` keeps one actor per CPU of the cluster, each set up once (an engine and
its grammar cache: runner._worker_init) and then given batches of items, two in flight
per actor; results stream back in the order they complete, to the driver, the only
process that writes anything. `run_tasks` runs one task per argument tuple (the fuzzer's
workers) and returns their values in order.
"""
from __future__ import annotations

import contextlib
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from refimpl.showing.commandline import CommandLineError

#: items per actor call: few enough to spread a small suite, enough to amortise a call
BATCH = 4


class RayMissing(CommandLineError):
    """--ray without Ray installed."""


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise RayMissing("--ray needs Ray: pip install 'maskref[cluster]' (or ray)") from None
    return ray


@contextlib.contextmanager
def connected(address: str, cpus: Optional[int] = None) -> Iterator[Any]:
    """The ray module, connected to the cluster `address` ("" a new local one) for the
    duration of the block."""
    ray = _ray()
    if ray.is_initialized():
        yield ray
        return
    import logging

    if address:
        ray.init(address=address, logging_level=logging.WARNING)
    else:  # "local": a new cluster, never one another user started on this machine
        ray.init(address="local", num_cpus=cpus, include_dashboard=False, logging_level=logging.WARNING)
    try:
        yield ray
    finally:
        ray.shutdown()


class _Worker:
    """An actor: set up once, then maps a function over the batches it is given."""

    def __init__(self, init: Callable[..., None], init_args: Tuple[Any, ...]) -> None:
        init(*init_args)

    def map(self, fn: Callable[[Any], Any], items: List[Any]) -> List[Any]:
        return [fn(item) for item in items]


def map_unordered(init: Callable[..., None], init_args: Tuple[Any, ...], fn: Callable[[Any], Any],
                  items: Sequence[Any], address: str, cpus: Optional[int] = None) -> Iterator[Any]:
    """fn(item) for every item, on a pool of actors (one per CPU, each running
    init(*init_args) first), in the order they complete."""
    if not items:
        return
    with connected(address, cpus) as ray:
        n = max(1, int(ray.cluster_resources().get("CPU", 1)))
        actor = ray.remote(num_cpus=1)(_Worker)
        workers = [actor.remote(init, init_args) for _ in range(min(n, (len(items) + BATCH - 1) // BATCH))]
        batches = iter([list(items[i:i + BATCH]) for i in range(0, len(items), BATCH)])
        running: Dict[Any, Any] = {}

        def give(worker: Any) -> None:
            batch = next(batches, None)
            if batch is not None:
                running[worker.map.remote(fn, batch)] = worker

        try:
            for w in workers * 2:
                give(w)
            while running:
                ready, _ = ray.wait(list(running), num_returns=1)
                give(running.pop(ready[0]))
                yield from ray.get(ready[0])
        finally:
            for w in workers:
                ray.kill(w)


def run_tasks(fn: Callable[..., Any], args_for: Callable[[int], Sequence[Tuple[Any, ...]]], address: str,
              cpus: Optional[int] = None) -> List[Any]:
    """[fn(*a) for a in args_for(the cluster's CPUs)], each a task of one CPU on the
    cluster, in order."""
    with connected(address, cpus) as ray:
        task = ray.remote(num_cpus=1)(fn)
        args = args_for(max(1, int(ray.cluster_resources().get("CPU", 1))))
        return list(ray.get([task.remote(*a) for a in args]))
