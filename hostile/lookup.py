"""Targets by name: a name of the registry (hostile/targets: `regex`), or `module:name`
for a target listed in another module's `TARGETS` (the driver's tests use toy targets so).

A child process the driver starts finds its target again by `reference(target)`, which
names the module that lists it: the child imports that module only (under atheris's
instrumentation), not every target's.
"""
from __future__ import annotations

import importlib
from typing import Dict, List, Sequence

from refimpl.showing.commandline import CommandLineError

from .targets import Target, _collect


def registry() -> Dict[str, Target]:
    """Every registered target, by name (hostile/targets/__init__.py)."""
    return _collect()


def reference(target: Target) -> str:
    """`module:name`, naming the module whose TARGETS lists the target."""
    return "%s:%s" % (target.run.__module__, target.name)


def resolve(ref: str) -> Target:
    """The target a name or a `module:name` reference names; a CommandLineError (naming the
    known targets) if none."""
    if ":" in ref:
        module_name, name = ref.rsplit(":", 1)
        try:
            module = importlib.import_module(module_name)
        except ImportError as e:
            raise CommandLineError("target %s: no module %s (%s)" % (ref, module_name, e)) from None
        for target in getattr(module, "TARGETS", ()):
            if target.name == name:
                return target
        known = registry()
        if name in known and reference(known[name]) == ref:
            return known[name]
        raise CommandLineError("target %s: %s lists no target %r" % (ref, module_name, name))
    known = registry()
    if ref not in known:
        raise CommandLineError("unknown target %r (the targets: %s)" % (ref, ", ".join(sorted(known)) or "none"))
    return known[ref]


def select(refs: Sequence[str]) -> List[Target]:
    """The targets named (each once, in the order given), or every registered target."""
    if not refs:
        return [t for _, t in sorted(registry().items())]
    out: List[Target] = []
    for ref in refs:
        t = resolve(ref)
        if t not in out:
            out.append(t)
    return out
