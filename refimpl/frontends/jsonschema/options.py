"""The options of the JSON schema compiler (llguidance's `x-guidance`): their defaults,
how the layers merge (`defaults`, keyword arguments, the schema's "x-guidance",
`overrides`), the whitespace they give JSON, and `IgnoredKeyword`, the record of a
keyword skipped under `lenient`."""
from __future__ import annotations

from typing import Any, Dict, NamedTuple, Optional, Tuple

from ...errors import RegexError, SchemaError, shown
from ...limits import Limits
from ...regex import ExprSet, compile_pattern
from ...regex.reader import read_pattern
from .values import escape_pointer, schema_value

#: llguidance's `x-guidance` options and their defaults (docs/json_schema.md there).
DEFAULT_OPTIONS: Dict[str, Any] = {
    "item_separator": ",",
    "key_separator": ":",
    "whitespace_flexible": True,
    "whitespace_pattern": None,
    "coerce_one_of": False,
    "lenient": False,
    "json_allowed_escapes": "nrbtf\\\"u",
    "json_allow_general_unicode_escapes": False,
}

FLEXIBLE_WHITESPACE = r"[\x20\x0A\x0D\x09]+"


class IgnoredKeyword(NamedTuple):
    """A keyword skipped under `lenient=True`: what, where, and why it is not exact."""

    keyword: str
    pointer: str
    reason: str

    def __str__(self) -> str:
        return "%s at %s: %s" % (self.keyword, self.pointer or "/", self.reason)


def merge_options(base: Dict[str, Any], extra: Any, where: str) -> None:
    """Check and merge one layer of options (`defaults`, `x-guidance`, `overrides`)."""
    if extra is None:
        return
    if not isinstance(extra, dict):
        raise SchemaError("%s must be an object" % (where or "options"), where)
    for key, value in extra.items():
        if key not in DEFAULT_OPTIONS:
            raise SchemaError(
                "unknown option '%s' (known: %s)" % (key, ", ".join(sorted(DEFAULT_OPTIONS))),
                where + "/" + escape_pointer(key) if where else "",
            )
        if key in ("item_separator", "key_separator", "json_allowed_escapes"):
            ok = isinstance(value, str) or (value is None and key == "json_allowed_escapes")
        elif key == "whitespace_pattern":
            ok = value is None or isinstance(value, str)
        else:
            ok = isinstance(value, bool)
        if not ok:
            raise SchemaError("option '%s' has a value of the wrong type: %s" % (key, shown(value)),
                              where + "/" + key if where else "")
        if key in ("item_separator", "key_separator", "whitespace_pattern") and value is not None:
            _check_regex(key, value, where)
        if key == "json_allowed_escapes":
            if value is None:
                value = DEFAULT_OPTIONS[key]
            bad = [c for c in value if c not in "nrbtf\\\"u"]
            if bad:
                raise SchemaError("invalid escape character in allowed_escapes: %s" % bad[0],
                                  where + "/" + key if where else "")
        base[key] = value


def _check_regex(key: str, pattern: str, where: str) -> None:
    """A regex option read where its layer gives it, so a malformed one is named there
    (`/x-guidance/item_separator` in the schema; "" for `defaults`, keyword arguments,
    `overrides`: the message names the option)."""
    try:
        read_pattern(pattern)
    except RegexError as e:
        what = "whitespace_pattern" if key == "whitespace_pattern" else "%s regex" % key
        raise SchemaError("invalid %s %r: %s" % (what, pattern, e.message), where + "/" + key if where else "") from None


def whitespace(es: ExprSet, options: Dict[str, Any]) -> Optional[int]:
    """The %ignore expression for JSON whitespace, or None (compact JSON).

    As in llguidance, the pattern describes the whole whitespace between two lexemes: it
    is matched at most once there (the JSON's lexeme class is in `GrammarIR.ignore_once`),
    so a bounded pattern such as `[ ]{0,2}` allows at most two spaces.
    """
    pattern = options["whitespace_pattern"]
    if pattern is None:
        return compile_pattern(es, FLEXIBLE_WHITESPACE) if options["whitespace_flexible"] else None
    try:
        w = compile_pattern(es, pattern)
    except RegexError as e:
        raise SchemaError("invalid whitespace_pattern %r: %s" % (pattern, e.message), "/x-guidance/whitespace_pattern") from None
    return w


def prepare(schema: Any, limits: Limits, defaults: Optional[Dict[str, Any]], overrides: Optional[Dict[str, Any]],
            options: Dict[str, Any]) -> Tuple[Any, Dict[str, Any]]:
    """The schema's value (values.schema_value: read, checked) and its options merged."""
    schema = schema_value(schema, limits)
    opts = dict(DEFAULT_OPTIONS)
    merge_options(opts, defaults, "")
    merge_options(opts, options, "")
    if isinstance(schema, dict) and "x-guidance" in schema:
        merge_options(opts, schema["x-guidance"], "/x-guidance")
    merge_options(opts, overrides, "")
    if opts["lenient"]:
        opts["coerce_one_of"] = True  # as in llguidance
    return schema, opts
