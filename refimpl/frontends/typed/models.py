"""pydantic models (v2), when pydantic is installed: through their own JSON schema.

A model class is recognised by what it has — `model_json_schema` and
`model_validate_json` — so refimpl never imports pydantic. Its grammar is that of
`Model.model_json_schema()`, compiled as any JSON schema (`json_schema_of`); parsing a
model's text needs the recogniser, so `refimpl.typed.parse` does it (refimpl/typed.py).
"""
from __future__ import annotations

from typing import Any, Dict


def is_model(t: Any) -> bool:
    """Is `t` a pydantic (v2) model class?"""
    return isinstance(t, type) and callable(getattr(t, "model_json_schema", None)) \
        and callable(getattr(t, "model_validate_json", None))


def model_schema(t: Any) -> Dict[str, Any]:
    """The model's JSON schema, as pydantic writes it."""
    schema = t.model_json_schema()
    assert isinstance(schema, dict)
    return schema
