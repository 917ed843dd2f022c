"""The character of docs/generation.md, a type for `maskref generate --type`:

    maskref generate --type docs/examples/character.py:Character --seed 5
    cd docs/examples && maskref generate --type character:Character --seed 5
"""
import enum
from dataclasses import dataclass, field
from typing import Annotated, List

from refimpl.typed import Length, Range


class Class(enum.Enum):
    WARRIOR = "warrior"
    MAGE = "mage"
    ROGUE = "rogue"


@dataclass
class Metadata:
    role: Class
    level: Annotated[int, Range(ge=1, le=99)]
    tags: List[str] = field(default_factory=list)


@dataclass
class Character:
    name: Annotated[str, Length(1, 32)]
    age: Annotated[int, Range(ge=0, le=255)]
    description: str
    metadata: Metadata
